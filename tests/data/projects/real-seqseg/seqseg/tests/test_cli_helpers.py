"""CLI parser wiring and small handlers (no full tracing runs)."""

import argparse
import io
import sys
from unittest.mock import patch

import pytest

from seqseg.cli import (
    _build_parser,
    _cmd_config_fingerprint,
    _cmd_init_dataset,
    _cmd_train_nnunet,
    _cmd_train_prepare,
    _inject_legacy_run_batch,
    dispatch,
)
from seqseg.pipeline.train import (
    PrepareResult,
    TrainDependencyError,
    dataset_id_from_name,
    expected_nnunet_dataset_name,
)


def test_inject_legacy_run_batch():
    assert _inject_legacy_run_batch(["run", "batch", "-data_dir", "x"]) == [
        "run",
        "batch",
        "-data_dir",
        "x",
    ]
    assert _inject_legacy_run_batch(["-data_dir", "x"]) == [
        "run",
        "batch",
        "-data_dir",
        "x",
    ]


def test_parser_version_exits_zero(capsys):
    parser = _build_parser()
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "seqseg" in out.lower() or len(out) > 0


def test_parser_run_single_required_flags():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "run",
            "single",
            "--image",
            "/tmp/img.nii.gz",
            "--outdir",
            "/tmp/out",
            "--model-folder",
            "/tmp/model",
            "--seed",
            "0",
            "0",
            "0",
            "1",
        ]
    )
    assert ns.command == "run"
    assert ns.run_cmd == "single"
    assert ns.image == "/tmp/img.nii.gz"
    assert ns.model_folder == "/tmp/model"
    assert ns.force_cpu is False


def test_parser_run_batch_cpu_flag():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "run",
            "batch",
            "-data_dir",
            "/tmp/data",
            "-outdir",
            "/tmp/out",
            "-img_ext",
            ".mha",
            "-cpu",
        ]
    )
    assert ns.force_cpu is True
    ns_off = parser.parse_args(
        [
            "run",
            "batch",
            "-data_dir",
            "/tmp/data",
            "-outdir",
            "/tmp/out",
            "-img_ext",
            ".mha",
        ]
    )
    assert ns_off.force_cpu is False


def test_parser_run_batch_start_seg():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "run",
            "batch",
            "-data_dir",
            "/tmp/data",
            "-outdir",
            "/tmp/out",
            "-img_ext",
            ".mha",
            "-start_seg",
            "/tmp/init.mha",
        ]
    )
    assert ns.start_seg == "/tmp/init.mha"
    ns_off = parser.parse_args(
        [
            "run",
            "batch",
            "-data_dir",
            "/tmp/data",
            "-outdir",
            "/tmp/out",
            "-img_ext",
            ".mha",
        ]
    )
    assert ns_off.start_seg is None


def test_parser_run_single_start_seg():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "run",
            "single",
            "--image",
            "/tmp/img.nii.gz",
            "--outdir",
            "/tmp/out",
            "--model-folder",
            "/tmp/model",
            "--seed",
            "0",
            "0",
            "0",
            "1",
            "--start-seg",
            "/tmp/init.nii.gz",
        ]
    )
    assert ns.start_seg == "/tmp/init.nii.gz"


def test_parser_run_plus_batch_start_seg():
    parser = _build_parser()
    ns = parser.parse_args(
        ["run", "plus", "batch", "--start-seg", "/tmp/init.mha"]
    )
    assert ns.start_seg == "/tmp/init.mha"


def test_parser_run_plus_batch_cpu_flag():
    parser = _build_parser()
    ns = parser.parse_args(["run", "plus", "batch", "--cpu"])
    assert ns.force_cpu is True


def test_parser_run_single_cpu_flag():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "run",
            "single",
            "--image",
            "/tmp/img.nii.gz",
            "--outdir",
            "/tmp/out",
            "--model-folder",
            "/tmp/model",
            "--seed",
            "0",
            "0",
            "0",
            "1",
            "-cpu",
        ]
    )
    assert ns.force_cpu is True


def test_parser_init_dataset():
    parser = _build_parser()
    ns = parser.parse_args(["init", "dataset", "--path", "/tmp/ds"])
    assert ns.command == "init"
    assert ns.init_cmd == "dataset"
    assert ns.path == "/tmp/ds"


def test_parser_config_fingerprint_defaults():
    parser = _build_parser()
    ns = parser.parse_args(["config", "fingerprint"])
    assert ns.command == "config"
    assert ns.cfg_cmd == "fingerprint"
    assert ns.name == "global"
    assert ns.baseline == "global_default"


def test_cmd_init_dataset_writes_template(tmp_path):
    root = str(tmp_path / "dataset")
    ns = argparse.Namespace(path=root, force=False)
    buf = io.StringIO()
    with patch.object(sys, "stdout", buf):
        _cmd_init_dataset(ns)
    assert (tmp_path / "dataset" / "images").is_dir()
    assert (tmp_path / "dataset" / "seeds.json").is_file()
    out = buf.getvalue()
    assert "seeds.json" in out


def test_cmd_init_dataset_skips_without_force(tmp_path):
    root = tmp_path / "ds2"
    root.mkdir()
    seeds = root / "seeds.json"
    seeds.write_text('{"existing": true}', encoding="utf-8")
    ns = argparse.Namespace(path=str(root), force=False)
    buf = io.StringIO()
    with patch.object(sys, "stdout", buf):
        _cmd_init_dataset(ns)
    assert seeds.read_text() == '{"existing": true}'
    assert "Skipped" in buf.getvalue()


def test_cmd_config_fingerprint_same_config(capsys):
    ns = argparse.Namespace(name="global", baseline="global")
    _cmd_config_fingerprint(ns)
    out = capsys.readouterr().out
    assert "No differences" in out


def test_dispatch_prints_citation_banner(tmp_path):
    root = str(tmp_path / "dataset")
    buf_out = io.StringIO()
    buf_err = io.StringIO()
    with patch.object(sys, "stdout", buf_out), patch.object(sys, "stderr", buf_err):
        dispatch(["init", "dataset", "--path", root])
    err = buf_err.getvalue()
    assert "Please cite the following paper when using SeqSeg" in err
    assert "Please cite the following paper when using nnU-Net" in err
    assert "Sveinsson Cepero" in err
    assert "Isensee" in err


def test_dispatch_no_citation_on_help(capsys):
    with pytest.raises(SystemExit) as exc:
        dispatch(["--help"])
    assert exc.value.code == 0
    err = capsys.readouterr().err
    assert "Please cite" not in err


def test_parser_train_prepare():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "train",
            "prepare",
            "--data-dir",
            "/tmp/data",
            "--name",
            "MYDATA",
            "--dataset-number",
            "999",
            "--modality",
            "CT",
        ]
    )
    assert ns.command == "train"
    assert ns.train_cmd == "prepare"
    assert ns.data_dir == "/tmp/data"
    assert ns.name == "MYDATA"
    assert ns.dataset_number == 999
    assert ns.img_ext is None
    assert ns.config_name == "default_mm"
    assert ns.global_volumes is False
    assert ns.keep_extracted is False
    assert ns.configuration == "3d_fullres"
    assert ns.preprocess_only is False
    by_id = parser.parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-id",
            "999",
        ]
    )
    assert by_id.dataset_number == 999
    only = parser.parse_args(
        [
            "train",
            "prepare",
            "--dataset-id",
            "999",
            "--configuration",
            "2d",
            "--preprocess-only",
            "--np",
            "8",
        ]
    )
    assert only.preprocess_only is True
    assert only.configuration == "2d"
    assert only.np == 8
    assert only.name is None


def test_parser_train_prepare_global_volumes():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-number",
            "999",
            "--global-volumes",
        ]
    )
    assert ns.global_volumes is True
    ns_alias = parser.parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-number",
            "999",
            "--whole-volumes",
        ]
    )
    assert ns_alias.global_volumes is True


def test_parser_train_prepare_regenerate_truth_alias():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-id",
            "999",
            "--regenerate-truth",
        ]
    )
    assert ns.truth_regenerate is True
    canonical = parser.parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-id",
            "999",
            "--truth-regenerate",
        ]
    )
    assert canonical.truth_regenerate is True


def test_parser_paths_init():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "paths",
            "init",
            "--data-dir",
            "/tmp/data",
            "--outdir",
            "/tmp/out",
        ]
    )
    assert ns.command == "paths"
    assert ns.paths_cmd == "init"
    assert ns.data_dir == "/tmp/data"
    assert ns.outdir == "/tmp/out"


def test_parser_paths_set_requires_nnunet_root():
    parser = _build_parser()
    ns = parser.parse_args(
        [
            "paths",
            "set",
            "--nnunet-root",
            "/tmp/nnunet",
            "--data-dir",
            "/tmp/data",
        ]
    )
    assert ns.paths_cmd == "set"
    assert ns.nnunet_root == "/tmp/nnunet"
    with pytest.raises(SystemExit):
        parser.parse_args(["paths", "set", "--data-dir", "/tmp/data"])


def test_parser_train_nnunet():
    parser = _build_parser()
    ns = parser.parse_args(
        ["train", "nnunet", "--dataset-id", "999", "--fold", "all", "--c"]
    )
    assert ns.command == "train"
    assert ns.train_cmd == "nnunet"
    assert ns.dataset_id == 999
    assert ns.continue_training is True
    assert ns.cleanup is False
    assert ns.configuration == "3d_fullres"
    continued = parser.parse_args(
        ["train", "nnunet", "--dataset-id", "999", "--continue"]
    )
    assert continued.continue_training is True
    with pytest.raises(SystemExit):
        parser.parse_args(
            ["train", "nnunet", "--dataset-id", "999", "--plan-only"]
        )


def test_dataset_id_from_name():
    assert dataset_id_from_name("Dataset010_SEQCOROASOCACT") == 10
    assert dataset_id_from_name("Dataset999_MYDATACT") == 999
    assert expected_nnunet_dataset_name("MYDATA", 999, "ct") == "Dataset999_MYDATACT"


def test_cmd_train_prepare_missing_dep(tmp_path, capsys):
    ns = argparse.Namespace(
        data_dir=str(tmp_path),
        outdir=str(tmp_path / "out"),
        name="MYDATA",
        dataset_number=999,
        modality="CT",
        config_name="global",
        nnunet_raw=None,
        perc_dataset=1.0,
        num_cores=1,
        start_from=0,
        end_at=-1,
        testing=False,
        validation_prop=None,
        max_samples=None,
        truth_from_surface=False,
        truth_target_spacing=None,
        truth_regenerate=False,
        skip_sample=False,
        skip_convert=False,
        also_test=False,
        verbose=False,
        img_ext=None,
        global_volumes=False,
        keep_extracted=False,
        configuration="3d_fullres",
        plans="nnUNetPlans",
        np=None,
        preprocess_only=False,
    )
    with patch(
        "seqseg.cli.prepare_training_dataset",
        side_effect=TrainDependencyError("missing"),
    ):
        with pytest.raises(SystemExit) as exc:
            _cmd_train_prepare(ns)
    assert exc.value.code == 1
    assert "missing" in capsys.readouterr().err


def test_cmd_train_prepare_getdatatype_hint(tmp_path, capsys):
    ns = argparse.Namespace(
        data_dir=str(tmp_path),
        outdir=str(tmp_path / "out"),
        name="MYDATA",
        dataset_number=999,
        modality="CT",
        config_name="global",
        nnunet_raw=None,
        perc_dataset=1.0,
        num_cores=1,
        start_from=0,
        end_at=-1,
        testing=False,
        validation_prop=None,
        max_samples=None,
        truth_from_surface=False,
        truth_target_spacing=None,
        truth_regenerate=False,
        skip_sample=False,
        skip_convert=False,
        also_test=False,
        verbose=False,
        img_ext=None,
        global_volumes=False,
        keep_extracted=False,
        configuration="3d_fullres",
        plans="nnUNetPlans",
        np=None,
        preprocess_only=False,
    )
    with patch(
        "seqseg.cli.prepare_training_dataset",
        side_effect=AttributeError(
            "'NoneType' object has no attribute 'GetDataType'"
        ),
    ):
        with pytest.raises(SystemExit) as exc:
            _cmd_train_prepare(ns)
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert "GetDataType" in err
    assert "centerlines" in err


def test_cmd_train_nnunet_resolves_name(monkeypatch):
    called = {}

    def fake_run(dataset_id, **kwargs):
        called["dataset_id"] = dataset_id
        called["kwargs"] = kwargs

    monkeypatch.setattr("seqseg.cli.run_nnunet_training", fake_run)
    ns = argparse.Namespace(
        dataset_id=None,
        dataset_name="Dataset999_MYDATACT",
        configuration="3d_fullres",
        fold="0",
        trainer="nnUNetTrainer",
        plans="nnUNetPlans",
        cleanup=False,
        continue_training=True,
    )
    _cmd_train_nnunet(ns)
    assert called["dataset_id"] == 999
    assert called["kwargs"]["continue_training"] is True
    assert called["kwargs"]["cleanup"] is False


def test_parser_train_prepare_keep_extracted_and_cleanup():
    parser = _build_parser()
    prep = parser.parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-number",
            "999",
            "--keep-extracted",
        ]
    )
    assert prep.keep_extracted is True
    train = parser.parse_args(
        ["train", "nnunet", "--dataset-id", "999", "--cleanup"]
    )
    assert train.cleanup is True


def test_cmd_train_prepare_points_at_results(capsys, monkeypatch):
    sentinel = PrepareResult(
        extracted_dir="/tmp/stage",
        dataset_dirs=["/nn/nnUNet_raw/Dataset999_MYDATACT"],
        dataset_names=["Dataset999_MYDATACT"],
        modalities=["CT"],
        removed_staging=True,
        preprocessed=True,
    )
    monkeypatch.setattr(
        "seqseg.cli.prepare_training_dataset",
        lambda *_args, **_kwargs: sentinel,
    )
    monkeypatch.setattr(
        "seqseg.cli.resolve_path",
        lambda *_args, **_kwargs: "/nn/nnUNet_results",
    )
    ns = _build_parser().parse_args(
        [
            "train",
            "prepare",
            "--name",
            "MYDATA",
            "--dataset-number",
            "999",
            "--data-dir",
            "/tmp/data",
        ]
    )
    _cmd_train_prepare(ns)
    out = capsys.readouterr().out
    assert "subvolumes were removed" in out
    assert "/nn/nnUNet_results" in out
    assert "seqseg train nnunet --dataset-id 999" in out


def test_parser_global_centerline_seeds_json_optional():
    parser = _build_parser()
    single = parser.parse_args(
        [
            "post",
            "global-centerline",
            "single",
            "--seg",
            "/tmp/case.mha",
            "--out",
            "/tmp/case.vtp",
        ]
    )
    assert single.seeds_json is None
    assert single.case_name is None

    batch = parser.parse_args(
        [
            "post",
            "global-centerline",
            "batch",
            "--seg-dir",
            "/tmp/segs",
            "--seg-glob",
            "*.mha",
        ]
    )
    assert batch.seeds_json is None


def test_global_centerline_single_identifies_seeds_without_json(tmp_path):
    from seqseg.pipeline.post import run_global_centerline_single

    seg = tmp_path / "case.mha"
    seg.write_bytes(b"x")
    out = tmp_path / "out.vtp"
    with patch("seqseg.pipeline.post.sitk.ReadImage", return_value="img"), patch(
        "seqseg.pipeline.post.calc_centerline_global",
        return_value=(object(), [], True),
    ) as calc, patch("seqseg.pipeline.post.vf.write_vtk_polydata"):
        run_global_centerline_single(str(seg), str(out))
    assert calc.call_args.args[1] == []
    assert calc.call_args.kwargs["nr_seeds"] is None


def test_global_centerline_single_requires_case_name_with_seeds(tmp_path):
    from seqseg.pipeline.post import run_global_centerline_single

    seg = tmp_path / "case.mha"
    seg.write_bytes(b"x")
    with patch("seqseg.pipeline.post.sitk.ReadImage", return_value="img"):
        with pytest.raises(ValueError, match="case_name is required"):
            run_global_centerline_single(
                str(seg),
                str(tmp_path / "out.vtp"),
                seeds_json=str(tmp_path / "seeds.json"),
            )
