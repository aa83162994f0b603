repo_url = "https://github.com/bayesflow-org/bayesflow/"
issue_url = repo_url + "issues/new"
pull_url = repo_url + "compare"
