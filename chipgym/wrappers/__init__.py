"""Wrappers for chipgym's envs: reward shaping, episode recording, text as numeric features, DRC template actions."""

from chipgym.wrappers.drc_template import DrcTemplateActions
from chipgym.wrappers.recording import RecordEpisodes
from chipgym.wrappers.shaping import DrcRewardShaping, RtlRewardShaping
from chipgym.wrappers.text_features import TextFeatures

__all__ = ["DrcRewardShaping", "DrcTemplateActions", "RecordEpisodes", "RtlRewardShaping", "TextFeatures"]
