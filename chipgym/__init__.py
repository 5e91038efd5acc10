"""chipgym: Gymnasium environments for chip-design agents, graded by real EDA engines.

>>> import gymnasium, chipgym
>>> gymnasium.spec("chipgym/DrcScript-v0").max_episode_steps, gymnasium.spec("chipgym/RtlDesign-v0").max_episode_steps
(30, 40)
"""

from gymnasium.envs.registration import register

# max_episode_steps is each env's default step budget (its max_steps argument), so that gymnasium.make's
# TimeLimit and the budget the env shows its agent agree.
register(id="chipgym/DrcScript-v0", entry_point="chipgym.envs.drc_script:DrcScriptEnv", max_episode_steps=30)
register(id="chipgym/RtlDesign-v0", entry_point="chipgym.envs.rtl_design:RtlDesignEnv", max_episode_steps=40)
# One step: the MultiDiscrete template action is compiled, run on the public examples and submitted.
register(id="chipgym/DrcTemplate-v0", entry_point="chipgym.wrappers.drc_template:DrcTemplateEnv")
register(id="chipgym/CpuKnobs-v0", entry_point="chipgym.envs.cpu_knobs:CpuKnobsEnv")
