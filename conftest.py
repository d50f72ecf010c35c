"""pytest plugins for every path, notebooks/ included: nbval's kernels replay recorded model replies."""

pytest_plugins = ["tests.replay_plugin"]
