"""Each env's actions are one table of ops (issue 29 §1): its parser, its chat tools' JSON schemas and the
prompt's list of actions are derived from it, so none of them can name an op, a field or a bound the others lack."""
from __future__ import annotations

import json

import pytest

from chipgym.envs import chat
from chipgym.envs.json_action import ActionError, parse


@pytest.mark.parametrize("env_id", chat.chat_env_ids())
def test_tools_prompt_and_parser_come_from_the_envs_one_table(env_id):
    ops = chat.protocol(env_id).ops
    tools = chat.tools(env_id)
    assert [(t["function"]["name"], t["function"]["description"], t["function"]["parameters"]) for t in tools] == \
        [(op.name, op.description, op.schema) for op in ops]
    help_text = chat.ops_text(env_id)
    assert all(f"- {op.name}" in help_text and op.description in help_text for op in ops)
    for op in ops:
        assert set(op.schema["required"]) <= set(op.schema["properties"]), op.name
        if op.schema["required"]:  # an op without its required fields is the agent's error, naming a field
            with pytest.raises(ActionError):
                parse(json.dumps({"op": op.name}), ops, 1000)
    with pytest.raises(ActionError, match="expected one of " + ", ".join(op.name for op in ops)):
        parse('{"op": "fly"}', ops, 1000)
