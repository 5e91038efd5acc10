"""The chat protocol of chipgym's envs: an observation as chat messages, every action op as a tool with a JSON
schema and as a line of the system prompt (both from the env's table of ops, which its parser reads too:
:class:`chipgym.envs.json_action.Op`), and the action read back from a
reply (a tool call, a fenced JSON block, or for the DRC env a deck in a fenced ``ruby`` block).

The LLM agent (:mod:`chipgym.baselines.llm`), the :class:`chipgym.wrappers.ChatEnv` wrapper and the trajectory
export all speak it, so a conversation logged by one reads the same in the others.

>>> from chipgym.envs import chat
>>> [tool["function"]["name"] for tool in chat.tools("chipgym/DrcScript-v0")]
['write', 'patch', 'add_test', 'run', 'submit']
>>> chat.action_from_reply('I will run it.\\n```json\\n{"op": "run"}\\n```')
'{"op": "run"}'
>>> chat.action_from_reply("", [{"function": {"name": "submit", "arguments": "{}"}}])
'{"op": "submit"}'
>>> chat.action_from_reply("no action here") is None
True
>>> chat.action_from_reply("```ruby\\nsource($input)\\n```", env_id="chipgym/DrcScript-v0")
'{"op": "write", "script": "source($input)\\\\n"}'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import gymnasium

from chipgym.envs.json_action import Op
from chipgym.envs.registry import env_class

FENCE = "```"
LANGUAGE = re.compile(r"[ \t]*([\w+#.-]*)")  # a fence's language, at the start of its opening line
NO_ACTION = "no action found"


@dataclass(frozen=True)
class ChatProtocol:
    """How one env's observation fields become messages, and its actions tools: an env declares it as its
    class's ``chat``, and the generic code asks for it by id (:func:`protocol`)."""

    intro: str  # the system prompt
    kept: tuple[str, ...]  # fields of the task message never cut by a context budget (the rule, the task)
    cuttable: tuple[str, ...]  # the other fields of the task message, cut first to last
    state: tuple[str, ...]  # fields repeated after every action (feedback first)
    ops: tuple[Op, ...]  # the env's actions
    code: tuple[str, str, tuple[str, ...]] | None = None  # a fenced block of code as an action: op, field, languages


REPLY_RULES = (
    "Reply with exactly one action per turn: call one of the tools, or end your reply with one fenced block\n"
    '```json\n{"op": "..."}\n```\nA reply without a valid action is fed back as an error and costs a step.'
)
"""The end of every protocol's system prompt: how a reply carries its action."""


def protocol(env_id: str) -> ChatProtocol:
    """The chat protocol that the env registered as ``env_id`` declares (its class's ``chat``)."""
    chat = getattr(env_class(env_id), "chat", None)
    if not isinstance(chat, ChatProtocol):
        raise ValueError(f"env_id: {env_id!r} declares no chat protocol (a ChatProtocol as its class's `chat`); "
                         f"these do: {', '.join(chat_env_ids())}")
    return chat


def chat_env_ids() -> list[str]:
    """The registered chipgym ids whose env declares a chat protocol."""
    ids = []
    for env_id, spec in sorted(gymnasium.registry.items()):
        if env_id.startswith("chipgym/") and isinstance(spec.entry_point, str):
            if isinstance(getattr(env_class(env_id), "chat", None), ChatProtocol):
                ids.append(env_id)
    return ids


def _section(name: str, text: str) -> str:
    return f"## {name}\n{text}"


def task_message(env_id: str, observation: Mapping[str, str], max_chars: int | None = None) -> str:
    """The first user message: every field of the observation, those of ``ChatProtocol.cuttable`` cut (first to last)
    until the message fits ``max_chars``; the kept fields (the rule, the task) are never cut."""
    spec = protocol(env_id)
    names = [n for n in (*spec.kept, *reversed(spec.cuttable), *spec.state) if n in observation]
    texts = {name: observation[name] for name in names}
    for name in spec.cuttable:
        if max_chars is None or name not in texts:
            continue
        excess = sum(len(_section(n, t)) + 2 for n, t in texts.items()) - max_chars
        if excess > 0:
            keep = max(0, len(texts[name]) - excess - 40)
            texts[name] = texts[name][:keep] + f"\n... ({len(observation[name]) - keep} characters cut)"
    return "\n\n".join(_section(name, texts[name]) for name in names)


def state_message(env_id: str, observation: Mapping[str, str], note: str = "", unread: str = "") -> str:
    """The message after an action: what it did (the feedback) and the state fields, with ``note`` (e.g. the
    time left) at the end. ``unread`` says why the reply held no action the agent could read (``NO_ACTION``, or a
    problem of the reply); the feedback is then that, with the actions, instead of the env's rejection of the
    empty action sent in its place.

    >>> state_message("chipgym/RtlDesign-v0", {"feedback": "Action rejected: ...", "budget": "3 of 4 steps left"},
    ...               unread=NO_ACTION).splitlines()[:2]
    ['## feedback', 'Your reply was not read: no action found. Reply with exactly one action.']
    """
    spec = protocol(env_id)
    fields = {name: observation.get(name) for name in spec.state}
    if unread:
        fields["feedback"] = f"Your reply was not read: {unread}. Reply with exactly one action.\n{ops_text(env_id)}"
    parts = [_section(name, text) for name, text in fields.items() if text]
    return "\n\n".join(parts + ([note] if note else []))


def messages(env_id: str, observation: Mapping[str, str], max_chars: int | None = None,
             describe_ops: bool = True) -> list[dict[str, Any]]:
    """The opening messages of an episode: the system prompt and the task message. ``describe_ops`` adds the
    actions and their fields to the system prompt, for a model that is not certainly shown the tools."""
    intro = protocol(env_id).intro + ("\n\n" + ops_text(env_id) if describe_ops else "")
    return [{"role": "system", "content": intro},
            {"role": "user", "content": task_message(env_id, observation, max_chars)}]


def action_from_reply(content: str | None, tool_calls: Sequence[Mapping[str, Any]] = (),
                      env_id: str | None = None) -> str | None:
    """The action text of a reply: its first tool call as ``{"op": NAME, **arguments}``, else its last fenced
    JSON block, else, for an env whose protocol reads code (the DRC env: a deck in a fenced ``ruby`` block), its
    last block of that code as the op that takes it (a blank block is none of these), else the whole reply when it
    is a JSON object; None when the reply holds no action.
    Tool calls are as the LLM client keeps them (a function with a name and text arguments); arguments that are
    not a JSON object, or are nested too deeply to read, are passed on as they are, for the env to reject.

    >>> action_from_reply("", [{"function": {"name": "write", "arguments": "[" * 100_000}}])[:3]
    '[[['
    """
    if tool_calls:
        function = tool_calls[0]["function"]
        arguments = function.get("arguments") or "{}"
        try:
            data = json.loads(arguments)
            return json.dumps({"op": function["name"], **data}) if isinstance(data, dict) else arguments
        except (ValueError, RecursionError):
            return arguments
    text = (content or "").strip()
    blocks = [(language, body) for language, body in fenced_blocks(text) if body.strip()]  # "```\n```" holds none
    json_blocks = [body.strip() for language, body in blocks
                   if language == "json" or (not language and body.lstrip().startswith("{"))]
    if json_blocks:
        return json_blocks[-1]
    code = protocol(env_id).code if env_id else None
    decks = [body for language, body in blocks if code and language in ("", *code[2])]
    if decks:
        return json.dumps({"op": code[0], code[1]: decks[-1]})
    if text.startswith("{") and text.endswith("}"):
        return text
    return None


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    r"""The fenced blocks of a reply, as (language in lower case, text), in one pass: a block opens at three
    backticks, its language begins the rest of that line, and its text runs from the next line to the next three
    backticks. A pattern that searched for each block's end from every opening took minutes on a reply of
    backticks (issue 39, section 6); this is linear in the reply.

    >>> fenced_blocks("Here:\n```Ruby deck\nx = 1\n```\nand ```json\n{}```")
    [('ruby', 'x = 1\n'), ('json', '{}')]
    """
    blocks = []
    start = text.find(FENCE)
    while start >= 0:
        line_end = text.find("\n", start + len(FENCE))
        end = text.find(FENCE, line_end + 1) if line_end >= 0 else -1
        if end < 0:  # no later opening has a line or a closing either
            break
        language = LANGUAGE.match(text, start + len(FENCE), line_end).group(1)
        blocks.append((language.lower(), text[line_end + 1:end]))
        start = text.find(FENCE, end + len(FENCE))
    return blocks


IGNORED_CALL = "Ignored: one action per turn; only the first tool call was carried out."


def answer(assistant: Mapping[str, Any], content: str) -> list[dict[str, Any]]:
    """The env's answer to an assistant message: a user message, or when it called tools, a tool message per
    call (the first carries ``content``, the others say they were ignored).

    >>> answer({"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]}, "Deck patched.")[1]["content"]
    'Ignored: one action per turn; only the first tool call was carried out.'
    """
    calls = assistant.get("tool_calls") or ()
    if not calls:
        return [{"role": "user", "content": content}]
    return [{"role": "tool", "tool_call_id": call["id"], "content": content if i == 0 else IGNORED_CALL}
            for i, call in enumerate(calls)]


def tools(env_id: str) -> list[dict[str, Any]]:
    """One chat-completions tool per action op of ``env_id``, in the env's order."""
    return [{"type": "function", "function": {"name": op.name, "description": op.description,
                                              "parameters": op.schema}} for op in protocol(env_id).ops]


def ops_text(env_id: str) -> str:
    """The actions of ``env_id`` for a prompt, from the same table as :func:`tools`: each op with its fields
    (``FIELD?``: may be left out) and what it does.

    >>> print(ops_text("chipgym/RtlDesign-v0").splitlines()[4])
    - set_clock {"period_ps": integer 1..1000000}: Set the clock period in design.toml.
    """
    spec = protocol(env_id)
    lines = ['The actions, each one JSON object {"op": NAME, FIELD: VALUE, ...} (FIELD? may be left out):']
    for op in spec.ops:
        lines.append(f"- {op.name}{' ' + _schema_text(op.schema) if op.schema['properties'] else ''}: "
                     f"{op.description}")
    first = spec.ops[0]
    example = json.dumps({"op": first.name, **{name: "..." for name in first.schema["required"]}})
    lines.append(f"For example, end your reply with:\n```json\n{example}\n```")
    if spec.code:
        op, field, languages = spec.code
        lines.append(f"A reply without a JSON action whose last fenced block is ```{languages[0]} is read as {op}, "
                     f"the block as its {field}.")
    return "\n".join(lines)


def _schema_text(schema: Mapping[str, Any]) -> str:
    """An op's JSON schema as one short line: ``{"path": text, "estimate"?: true or false}``."""
    description = schema.get("description", "")
    if description[:1] in "[{" and description:
        return description
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", ())
        text = "{" + ", ".join(f'"{name}"{"" if name in required else "?"}: {_schema_text(field)}'
                               for name, field in schema.get("properties", {}).items()) + "}"
    elif kind == "array":
        text = f"[{_schema_text(schema['items'])}, ...]"
    elif "enum" in schema:
        text = " or ".join(map(str, schema["enum"]))
    elif kind == "integer" and "minimum" in schema and "maximum" in schema:
        text = f"integer {schema['minimum']}..{schema['maximum']}"
    else:
        text = {"string": "text", "boolean": "true or false"}.get(kind, kind)
    return f"{text} ({description})" if description else text
