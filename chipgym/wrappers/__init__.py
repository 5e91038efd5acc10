"""Wrappers for chipgym's envs: reward shaping and episode recording."""

from chipgym.wrappers.recording import RecordEpisodes
from chipgym.wrappers.shaping import DrcRewardShaping, RtlRewardShaping

__all__ = ["DrcRewardShaping", "RecordEpisodes", "RtlRewardShaping"]
