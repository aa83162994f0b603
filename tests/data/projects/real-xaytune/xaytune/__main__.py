from xaytune.cli import main

raise SystemExit(main())
