"""Wrappers for chipgym's envs: reward shaping, episode recording, and text as numeric features."""

from chipgym.wrappers.recording import RecordEpisodes
from chipgym.wrappers.shaping import DrcRewardShaping, RtlRewardShaping
from chipgym.wrappers.text_features import TextFeatures

__all__ = ["DrcRewardShaping", "RecordEpisodes", "RtlRewardShaping", "TextFeatures"]
