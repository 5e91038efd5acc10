"""Wrappers for chipgym's envs: reward shaping, episode recording, text as numeric features, DRC template
actions, and chat."""

from chipgym.wrappers.chat import ChatEnv
from chipgym.wrappers.drc_template import DrcTemplateActions
from chipgym.wrappers.recording import RecordEpisodes
from chipgym.wrappers.shaping import DrcRewardShaping, RtlRewardShaping
from chipgym.wrappers.text_features import TextFeatures

__all__ = ["ChatEnv", "DrcRewardShaping", "DrcTemplateActions", "RecordEpisodes", "RtlRewardShaping", "TextFeatures"]
