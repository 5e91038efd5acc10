"""What every env must do, as checks of one env id on one of its smoke episodes (``envs/registry.SmokeEpisode``):
Gymnasium's checker, determinism under a seed, save and replay, two envs side by side in an ``AsyncVectorEnv``,
and no ``info`` key outside the schema its class declares (``info_keys``). ``tests/envs/test_conformance.py``
runs them on every registered ``chipgym/`` id; ``tests/envs/test_toy_env.py`` on an env written in a test."""

from __future__ import annotations

from pathlib import Path

import gymnasium
from gymnasium.utils.env_checker import check_env

from chipgym.envs.episode import replay
from chipgym.envs.registry import SmokeEpisode, env_class


def play(env_id: str, episode: SmokeEpisode, seed: int = 7) -> tuple[list, gymnasium.Env]:
    env = gymnasium.make(env_id, **episode.kwargs)
    steps = [env.reset(seed=seed, options=episode.options)] + [env.step(action) for action in episode.actions]
    return steps, env


def is_wrapper(env: gymnasium.Env, env_id: str) -> bool:
    """True for an id whose env is a wrapper of another chipgym env (its ``unwrapped`` is that env, which
    ``gymnasium.make`` gives the wrapper's spec: its class names its own id)."""
    return getattr(type(env.unwrapped), "env_id", env_id) != env_id


def gymnasium_env_checker(env_id: str, episode: SmokeEpisode, tmp_path: Path) -> None:
    env = gymnasium.make(env_id, **episode.kwargs)
    check_env(env if is_wrapper(env, env_id) else env.unwrapped, skip_render_check=True)
    env.close()


def the_same_seed_and_actions_give_the_same_everything(env_id: str, episode: SmokeEpisode, tmp_path: Path) -> None:
    first, env = play(env_id, episode)
    env.close()
    second, env = play(env_id, episode)
    env.close()
    assert repr(first) == repr(second)


def a_saved_episode_replays_as_saved(env_id: str, episode: SmokeEpisode, tmp_path: Path) -> None:
    steps, env = play(env_id, episode)
    env.unwrapped.save_episode(tmp_path / "episode.json")
    env.close()
    result = replay(tmp_path / "episode.json")
    assert result.ok, result.divergence
    rewards = [step[1] for step in steps[1:]]
    if is_wrapper(env, env_id):  # the inner env's episode is saved: its last reward is the wrapper's
        assert result.rewards[-1:] == rewards[-1:]
    else:
        assert result.rewards == rewards


def two_envs_side_by_side_in_an_async_vector_env(env_id: str, episode: SmokeEpisode, tmp_path: Path) -> None:
    envs = gymnasium.vector.AsyncVectorEnv([lambda: gymnasium.make(env_id, **episode.kwargs)] * 2,
                                           shared_memory=False)
    try:
        envs.reset(seed=[0, 1], options=episode.options)
        for action in episode.actions[:2]:
            _, rewards, terminated, truncated, _ = envs.step([action, action])
            assert len(rewards) == 2
    finally:
        envs.close()


def every_info_key_is_in_the_envs_schema(env_id: str, episode: SmokeEpisode, tmp_path: Path) -> None:
    declared = getattr(env_class(env_id), "info_keys", None)
    assert declared is not None, f"{env_id}'s class declares no info_keys"
    steps, env = play(env_id, episode)
    env.close()
    seen = {key for info in [steps[0][1]] + [step[4] for step in steps[1:]] for key in info}
    assert seen <= set(declared), sorted(seen - set(declared))


CHECKS = (gymnasium_env_checker, the_same_seed_and_actions_give_the_same_everything,
          a_saved_episode_replays_as_saved, two_envs_side_by_side_in_an_async_vector_env,
          every_info_key_is_in_the_envs_schema)
