"""chipgym: Gymnasium environments for chip-design agents, graded by real EDA engines.

>>> import gymnasium, chipgym
>>> "chipgym/DrcScript-v0" in gymnasium.registry and "chipgym/RtlDesign-v0" in gymnasium.registry
True
"""

from gymnasium.envs.registration import register

register(id="chipgym/DrcScript-v0", entry_point="chipgym.envs.drc_script:DrcScriptEnv")
register(id="chipgym/RtlDesign-v0", entry_point="chipgym.envs.rtl_design:RtlDesignEnv")
