"""PPO on chipgym's numeric envs with RLlib's new API stack: train, checkpoint, resume, and run the policy.

:func:`train` registers the env with ``ray.tune.register_env`` (Gymnasium's registry does not reach Ray's
workers), trains ``iterations`` PPO iterations with ``num_env_runners`` rollout actors (on this machine or on a
Ray cluster: ``ray_address``), prints a progress line per iteration, checkpoints to ``out/checkpoint`` and
writes ``out/metrics.json`` (one :class:`IterationMetrics` per iteration) and ``out/learning_curve.png``. An
env whose observation is a Dict of ``"observations"`` and ``"action_mask"`` gets
:class:`~chipgym.baselines.masking.MaskedPPOTorchRLModule`; a ``Box`` observation gets PPO's default module.
Env runners that die are restarted (``restart_failed_env_runners``) and training goes on.

>>> run = PpoRun("chipgym/DrcTemplate-v0", {"tasks": "drc-v0", "split": "train"}, out="out/ppo", iterations=2)
>>> history = train(run)                                                           # doctest: +SKIP
iteration 1/2: return 0.03, success 0.03, 64 env steps (64 total), 31.2 s
...
>>> policy = load_policy("out/ppo/checkpoint")                                     # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import functools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import gymnasium
import numpy as np

from chipgym.baselines.masking import MaskedPPOTorchRLModule, greedy_actions, is_masked_space

CHECKPOINT, METRICS, CURVE = "checkpoint", "metrics.json", "learning_curve.png"
RUN_FILE = "chipgym_run.json"  # beside RLlib's files in a checkpoint: the run's settings and metrics so far


@dataclass(frozen=True)
class PpoRun:
    """One PPO training run: the env (a Gymnasium id and its kwargs), where its files go, and PPO's settings.

    An episode counts as a success when one of its rewards reaches ``success_reward``.
    """

    env_id: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    out: str | Path = "out/ppo"
    iterations: int = 10
    num_env_runners: int = 1
    seed: int = 0
    ray_address: str | None = None
    train_batch_size: int = 64
    minibatch_size: int = 32
    num_epochs: int = 8
    lr: float = 1e-3
    entropy_coeff: float = 0.0
    hidden: tuple[int, ...] = (64, 64)
    success_reward: float = 1.0
    checkpoint_every: int = 1
    restart_delay_s: float = 1.0  # between an env runner's death and its restart (RLlib's default is 60 s)
    episode_log: str | None = None  # a JSON-lines file every env runner appends its episodes to (on its node)


@dataclass(frozen=True)
class IterationMetrics:
    """What one training iteration did: its episodes' mean return and success rate, and the cumulative
    counts (env steps over all iterations so far, wall seconds of training so far)."""

    iteration: int
    episode_return_mean: float | None
    success_rate: float | None
    episodes: int
    env_steps: int
    env_steps_total: int
    seconds: float
    seconds_total: float
    env_runners_healthy: int
    env_runner_restarts: int


def env_name(env_id: str) -> str:
    """The name under which ``env_id`` is registered with Ray Tune."""
    return "chipgym-rllib/" + env_id


def make_env(env_id: str, config: dict) -> gymnasium.Env:
    """The env, built inside an env runner (any process on any node): imports chipgym so that its ids exist."""
    import chipgym  # noqa: F401  registers chipgym's ids in this process

    return gymnasium.make(env_id, **dict(config))


def register(env_id: str) -> str:
    """Registers ``env_id`` with Ray Tune (for this driver and every worker) and returns its Tune name."""
    from ray.tune import register_env

    name = env_name(env_id)
    register_env(name, lambda config: make_env(env_id, config))
    return name


def count_outcome(success_reward: float, episode_log: str | None, *, episode, metrics_logger, **kwargs) -> None:
    """RLlib's ``on_episode_end`` callback: counts the episode, its return and whether it succeeded (the sums
    are per iteration), and appends its actions, rewards and last status to ``episode_log``."""
    rewards = np.asarray(episode.get_rewards(), dtype=float)
    metrics_logger.log_value("chipgym_episodes", 1, reduce="sum")
    metrics_logger.log_value("chipgym_return", float(rewards.sum()), reduce="sum")
    success = float(rewards.size > 0 and rewards.max() >= success_reward)
    metrics_logger.log_value("chipgym_successes", success, reduce="sum")
    if episode_log is not None:
        infos = episode.get_infos()
        status = infos[-1].get("status") if len(infos) else None
        line = {"actions": np.asarray(episode.get_actions()).tolist(), "rewards": rewards.tolist(),
                "status": None if status is None else str(getattr(status, "value", status))}
        with open(episode_log, "a") as log:  # one short write per line: appends from processes do not interleave
            log.write(json.dumps(line) + "\n")


def build_config(run: PpoRun, observation_space: gymnasium.Space):
    """RLlib's PPOConfig for the run (the new API stack, torch)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    model = {"fcnet_hiddens": list(run.hidden), "head_fcnet_hiddens": [], "vf_share_layers": False}
    module = (RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model)
              if is_masked_space(observation_space) else RLModuleSpec(model_config=model))
    return (
        PPOConfig()
        .environment(register(run.env_id), env_config=dict(run.env_kwargs))
        .framework("torch")
        .env_runners(num_env_runners=run.num_env_runners, num_envs_per_env_runner=1,
                     rollout_fragment_length="auto", sample_timeout_s=900.0)
        .training(train_batch_size_per_learner=run.train_batch_size,
                  minibatch_size=min(run.minibatch_size, run.train_batch_size), num_epochs=run.num_epochs,
                  lr=run.lr, entropy_coeff=run.entropy_coeff)
        .rl_module(rl_module_spec=module)
        .callbacks(on_episode_end=functools.partial(count_outcome, run.success_reward, run.episode_log))
        .fault_tolerance(restart_failed_env_runners=True, delay_between_env_runner_restarts_s=run.restart_delay_s)
        .debugging(seed=run.seed, log_level="ERROR")
    )


def connect(address: str | None) -> None:
    """Starts Ray on this machine (``address=None``: a new local instance, never one that another user's
    ``ray start`` left running) or joins a cluster, unless this process already has."""
    import ray

    if not ray.is_initialized():
        ray.init(address=address or "local", include_dashboard=False, logging_level="ERROR", log_to_driver=False)


def _observation_space(run: PpoRun) -> gymnasium.Space:
    """The env's observation space, from an env built here once (it picks the RLModule)."""
    env = make_env(run.env_id, run.env_kwargs)
    try:
        return env.observation_space
    finally:
        env.close()


def build(run: PpoRun, resume: str | Path | None = None):
    """The RLlib Algorithm for the run, fresh or restored from a checkpoint folder, and the metrics so far."""
    connect(run.ray_address)
    if resume is None:
        return build_config(run, _observation_space(run)).build_algo(), []
    from ray.rllib.algorithms.algorithm import Algorithm

    register(run.env_id)
    saved = json.loads((Path(resume) / RUN_FILE).read_text())
    return Algorithm.from_checkpoint(str(Path(resume).resolve())), [IterationMetrics(**m) for m in saved["metrics"]]


def iteration_metrics(result: dict, algo, previous: IterationMetrics | None, seconds: float) -> IterationMetrics:
    """One iteration's figures from RLlib's result dict."""
    runners = result.get("env_runners", {})

    def count(key: str) -> float:  # RLlib reports NaN for a sum nothing was logged to (every runner died)
        value = float(runners.get(key, 0.0))
        return 0.0 if np.isnan(value) else value

    episodes, steps = int(count("chipgym_episodes")), int(count("num_env_steps_sampled"))
    group = algo.env_runner_group
    return IterationMetrics(
        iteration=(previous.iteration if previous else 0) + 1,
        episode_return_mean=count("chipgym_return") / episodes if episodes else None,
        success_rate=count("chipgym_successes") / episodes if episodes else None,
        episodes=episodes,
        env_steps=steps,
        env_steps_total=(previous.env_steps_total if previous else 0) + steps,
        seconds=round(seconds, 3),
        seconds_total=round((previous.seconds_total if previous else 0.0) + seconds, 3),
        env_runners_healthy=group.num_healthy_remote_workers(),
        env_runner_restarts=group.num_remote_worker_restarts(),
    )


def progress_line(m: IterationMetrics, iterations: int) -> str:
    def shown(value):
        return "n/a" if value is None else f"{value:.2f}"

    return (f"iteration {m.iteration}/{iterations}: return {shown(m.episode_return_mean)}, success "
            f"{shown(m.success_rate)}, {m.env_steps} env steps ({m.env_steps_total} total), {m.seconds:.1f} s, "
            f"{m.env_runners_healthy} env runners")


def save(algo, run: PpoRun, metrics: list[IterationMetrics]) -> Path:
    """Checkpoints the algorithm to ``out/checkpoint``, with the run and its metrics beside RLlib's files."""
    folder = Path(run.out).resolve() / CHECKPOINT
    algo.save_to_path(str(folder))
    record = {"run": _described(run), "metrics": [dataclasses.asdict(m) for m in metrics]}
    (folder / RUN_FILE).write_text(json.dumps(record, indent=1))
    return folder


def _described(run: PpoRun) -> dict:
    """The run's settings as JSON; a list of task objects is named by the tasks' ids."""
    def described(value):
        if isinstance(value, (list, tuple)) and value and all(hasattr(v, "id") for v in value):
            return [v.id for v in value]
        return value if isinstance(value, (int, float, str, bool, type(None), list, tuple)) else str(value)

    settings = {f.name: described(getattr(run, f.name)) for f in dataclasses.fields(run)}
    settings["env_kwargs"] = {k: described(v) for k, v in run.env_kwargs.items()}
    return settings


def write_metrics(out: str | Path, metrics: list[IterationMetrics]) -> Path:
    path = Path(out) / METRICS
    path.write_text(json.dumps([dataclasses.asdict(m) for m in metrics], indent=1))
    return path


def plot_curve(metrics: list[IterationMetrics], path: str | Path, title: str) -> Path:
    """Draws episode return mean and success rate against env steps into a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [m.env_steps_total for m in metrics]
    figure, axes = plt.subplots(figsize=(6, 3.5), dpi=100)
    axes.plot(steps, [np.nan if m.episode_return_mean is None else m.episode_return_mean for m in metrics],
              marker="o", label="episode return (mean)")
    axes.plot(steps, [np.nan if m.success_rate is None else m.success_rate for m in metrics],
              marker="s", linestyle="--", label="success rate")
    axes.set_xlabel("env steps")
    axes.set_title(title, fontsize=9)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return Path(path)


def train(run: PpoRun, resume: str | Path | None = None, progress: Callable[[str], None] = print,
          after_iteration: Callable[[Any, IterationMetrics], None] | None = None) -> list[IterationMetrics]:
    """Trains ``run.iterations`` iterations (more, after those of the checkpoint ``resume``); returns every
    iteration's metrics. ``after_iteration(algo, metrics)`` is called after each (tests use it)."""
    out = Path(run.out)
    out.mkdir(parents=True, exist_ok=True)
    algo, metrics = build(run, resume)
    try:
        total = len(metrics) + run.iterations
        for _ in range(run.iterations):
            start = time.monotonic()
            result = algo.train()
            metrics.append(iteration_metrics(result, algo, metrics[-1] if metrics else None,
                                             time.monotonic() - start))
            progress(progress_line(metrics[-1], total))
            if metrics[-1].iteration % run.checkpoint_every == 0 or len(metrics) == total:
                save(algo, run, metrics)
            write_metrics(out, metrics)
            if after_iteration is not None:
                after_iteration(algo, metrics[-1])
        plot_curve(metrics, out / CURVE, f"PPO on {run.env_id} (seed {run.seed})")
    finally:
        algo.stop()
    return metrics


class ModulePolicy:
    """A trained RLModule as a policy: ``policy(observation) -> action``, greedy or sampled.

    Greedy takes each dimension's most likely choice; sampling draws from the (masked) distribution with
    its own seeded generator.
    """

    def __init__(self, module, action_space: gymnasium.Space, greedy: bool = True, seed: int = 0):
        import torch

        self.module = module
        self.greedy = greedy
        if isinstance(action_space, gymnasium.spaces.MultiDiscrete):
            self.nvec, self.discrete = [int(n) for n in action_space.nvec.ravel()], False
        elif isinstance(action_space, gymnasium.spaces.Discrete):
            self.nvec, self.discrete = [int(action_space.n)], True
        else:
            raise TypeError(f"ModulePolicy: action space {action_space} is not Discrete or MultiDiscrete")
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, observation, info: dict | None = None) -> np.ndarray | int:
        import torch

        def tensor(value):
            return torch.as_tensor(np.asarray(value, dtype=np.float32))[None]

        batch = {k: tensor(v) for k, v in observation.items()} if isinstance(observation, dict) else tensor(
            observation)
        with torch.no_grad():
            logits = self.module.forward_inference({"obs": batch})["action_dist_inputs"]
        if self.greedy:
            choice = greedy_actions(logits, self.nvec)[0]
        else:
            choice = torch.stack([torch.multinomial(torch.softmax(part, -1), 1, generator=self.generator)[0, 0]
                                  for part in torch.split(logits, self.nvec, dim=-1)])
        action = choice.numpy().astype(np.int64)
        return int(action[0]) if self.discrete else action


def load_policy(checkpoint: str | Path, greedy: bool = True, seed: int = 0) -> ModulePolicy:
    """The policy saved in a checkpoint folder of :func:`train` (runs in this process, without Ray)."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE, DEFAULT_MODULE_ID
    from ray.rllib.core.rl_module.rl_module import RLModule

    folder = Path(checkpoint).resolve() / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE
    module = RLModule.from_checkpoint(str(folder / DEFAULT_MODULE_ID))
    return ModulePolicy(module, module.action_space, greedy, seed)
