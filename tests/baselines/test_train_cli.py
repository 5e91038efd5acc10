"""``chipgym train drc`` end to end with real Ray and the real DRC template env: files, evaluation, resume."""

from __future__ import annotations

import json

from chipgym.cli import main


def test_train_writes_metrics_curve_checkpoint_and_evaluation_then_resumes(local_ray, tiny_tasks, tmp_path, capsys):
    task = tiny_tasks[0].id
    first = tmp_path / "first"
    assert main(["train", "drc", "--algo", "ppo", "--task", task, "--iterations", "2", "--batch", "16",
                 "--num-env-runners", "1", "--seed", "3", "--out", str(first)]) == 0
    printed = capsys.readouterr().out
    assert "iteration 1/2: return" in printed and "iteration 2/2" in printed
    metrics = json.loads((first / "metrics.json").read_text())
    assert [m["iteration"] for m in metrics] == [1, 2]
    assert [m["env_steps_total"] for m in metrics] == [16, 32]
    assert all(m["episodes"] == 16 and 0.0 <= m["success_rate"] <= 1.0 for m in metrics)  # one step per episode
    assert metrics[1]["seconds_total"] > metrics[0]["seconds_total"] > 0
    assert (first / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (first / "checkpoint" / "rllib_checkpoint.json").exists()
    evaluation = json.loads((first / "evaluation.json").read_text())
    assert list(evaluation["rewards"]) == [task] and evaluation["rewards"][task] in (0.0, 1.0)

    resumed = tmp_path / "resumed"
    assert main(["train", "drc", "--task", task, "--iterations", "1", "--batch", "16", "--no-eval",
                 "--resume", str(first / "checkpoint"), "--out", str(resumed)]) == 0
    assert "iteration 3/3: return" in capsys.readouterr().out
    continued = json.loads((resumed / "metrics.json").read_text())
    assert continued[:2] == metrics
    assert continued[2]["iteration"] == 3 and continued[2]["env_steps_total"] == 48
    saved = json.loads((resumed / "checkpoint" / "chipgym_run.json").read_text())
    assert saved["run"]["env_kwargs"]["tasks"] == [task] and len(saved["metrics"]) == 3
