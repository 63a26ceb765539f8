"""What a tool is, and its definition in each model API's format (see the package's docstring)."""

from __future__ import annotations

import copy
import inspect
import math
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InvalidType, InvalidValue, MnemeError, describe
from ..messages import MESSAGES, Words, fill

if TYPE_CHECKING:
    from ..mneme import Mneme


STYLES = ("openai", "responses", "anthropic", "gemini", "mcp")
STRICT_STYLES = ("openai", "responses")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
"""A tool's full name (prefix included): what OpenAI, Anthropic, Gemini and MCP all accept."""
PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
FIELD = re.compile(r"[a-z_][a-z0-9_]{0,63}")
TYPES = ("string", "integer", "number", "boolean")
KEYWORDS = frozenset({"type", "description", "enum", "minimum", "maximum", "maxLength"})
"""What a parameter's schema may say: every style takes all of it (google-genai's `Schema` has `minimum`,
`maximum` and `maxLength`), but OpenAI's strict mode, which takes only `STRICT_KEYWORDS`."""
STRICT_KEYWORDS = frozenset({"type", "description", "enum"})
"""What OpenAI's strict mode is given: the keywords every release of it has accepted (ranges and lengths
came and went between them); the dispatcher enforces the rest, and the descriptions say it."""
HINTS = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
ARGUMENTS_LIMIT = 32_000
"""Characters of a call's JSON arguments read at most; a longer string is refused unparsed."""
QUERY_LIMIT = 1000
SUBJECT = "subject"
SUBJECT_SCHEMA = {"type": "string", "description": "Whose memory: the person's id, like discord:42."}


class ToolError(MnemeError):
    """A call the tool refuses, told to the model as an error.

    A plugin raises `ToolError("what was wrong")` with its own sentence; the built-in tools raise it with a
    sentence key (`ToolError(key="tool.missing", field="text")`) so it is said in the display language.
    """

    def __init__(self, message: str = "", *, key: str | None = None, **values: object) -> None:
        self.key, self.values = key, values
        super().__init__(message or (fill(MESSAGES["en"][key], values) if key else "the tool refused"))

    def problem(self, words: Words) -> str:
        return words.say(self.key, **self.values) if self.key else str(self)


@dataclass(frozen=True)
class Call:
    """One call as a handler sees it: arguments checked against the tool's schema, the subject decided."""

    mneme: Mneme
    subject: str
    arguments: Mapping[str, Any]
    words: Words
    source: str


@dataclass(frozen=True)
class Answer:
    """What a handler may return instead of text: the text for the model and the same answer as data (ids,
    kinds, dates), which MCP sends as `structuredContent`."""

    text: str
    data: Mapping[str, Any] | None = None


Handler = Callable[[Call], "str | Answer | Awaitable[str | Answer]"]


@dataclass(frozen=True)
class Reply:
    """What a call answers: the text for the model, whether it is an error, and its data, if any."""

    text: str
    error: bool = False
    tool: str | None = None
    data: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Tool:
    """A registered tool: its spec, checked, and its handler; `plugin` names who registered it."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: Handler
    annotations: Mapping[str, bool]
    plugin: str | None = None


# -- registering ----------------------------------------------------------------------------------------


def _refuse(name: str, what: str) -> InvalidValue:
    return InvalidValue(f"tool {describe(name)}: {what}")


def _property(tool: str, field: str, schema: object) -> dict[str, Any]:
    if not isinstance(field, str) or not FIELD.fullmatch(field) or field == SUBJECT:
        raise _refuse(
            tool, f"a parameter is named like 'query' (lowercase, not 'subject'), not {describe(field)}"
        )
    if not isinstance(schema, Mapping):
        raise _refuse(tool, f"parameter {field} is a schema (a dict), not {describe(schema)}")
    unknown = set(schema) - KEYWORDS
    kind = schema.get("type")
    if unknown or kind not in TYPES:
        raise _refuse(
            tool,
            f"parameter {field} has a type among {', '.join(TYPES)} and only the keywords "
            f"{', '.join(sorted(KEYWORDS))}, not {describe(dict(schema))}",
        )
    checks = {
        "description": lambda v: isinstance(v, str),
        "enum": lambda v: (
            kind == "string" and isinstance(v, list) and v and all(isinstance(i, str) for i in v)
        ),
        "minimum": lambda v: kind in ("integer", "number") and _is_number(v),
        "maximum": lambda v: kind in ("integer", "number") and _is_number(v),
        "maxLength": lambda v: kind == "string" and isinstance(v, int) and not isinstance(v, bool) and v > 0,
    }
    for keyword, ok in checks.items():
        if keyword in schema and not ok(schema[keyword]):
            raise _refuse(tool, f"parameter {field}: {keyword} {describe(schema[keyword])} does not fit")
    return copy.deepcopy(dict(schema))


def _parameters(tool: str, parameters: object) -> dict[str, Any]:
    """An object schema in the subset every API accepts, or `InvalidValue` naming what is not."""
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
        raise _refuse(tool, f"parameters are an object schema, not {describe(parameters)}")
    if set(parameters) - {"type", "properties", "required"}:
        raise _refuse(tool, "parameters take only type, properties and required")
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if not isinstance(properties, Mapping):
        raise _refuse(tool, f"properties are a dict, not {describe(properties)}")
    if not isinstance(required, list) or any(r not in properties for r in required):
        raise _refuse(tool, f"required lists some of the properties, not {describe(required)}")
    checked = {field: _property(tool, field, schema) for field, schema in properties.items()}
    return {"type": "object", "properties": checked, "required": list(dict.fromkeys(required))}


_JSON_TYPES: dict[object, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_JSON_TYPES.update({t.__name__: kind for t, kind in list(_JSON_TYPES.items())})  # annotations as written


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


class Registry:
    """Tools by name. The host owns it: names are checked, a second tool of a name is refused naming the
    plugin that has it, and each tool remembers who registered it."""

    def __init__(self, tools: Mapping[str, Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = dict(tools or {})

    def register(
        self, name: str, spec: Mapping[str, Any], handler: Handler, *, plugin: str | None = None
    ) -> Tool:
        """Add a tool: `spec` is `{"description": str, "parameters": <object schema>, "annotations": {...}}`
        (parameters and MCP annotations optional); `handler(call)` returns the reply text or raises
        `ToolError`."""
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InvalidValue(
                f"a tool name is a letter or _ then up to 63 letters, digits, _ or -, not {describe(name)}"
            )
        if name in self._tools:
            owner = self._tools[name].plugin or "mneme"
            raise _refuse(name, f"already registered by {owner}")
        if not isinstance(spec, Mapping):
            raise InvalidType(f"a tool's spec is a dict, not {type(spec).__name__}")
        if set(spec) - {"description", "parameters", "annotations"}:
            raise _refuse(name, "a spec takes only description, parameters and annotations")
        description = spec.get("description")
        if not isinstance(description, str) or not description.strip():
            raise _refuse(name, "a spec needs a description that tells the model when to call it")
        annotations = spec.get("annotations") or {}
        if not isinstance(annotations, Mapping) or any(
            k not in HINTS or not isinstance(v, bool) for k, v in annotations.items()
        ):
            raise _refuse(
                name, f"annotations are MCP hints ({', '.join(sorted(HINTS))}) set to true or false"
            )
        if not callable(handler):
            raise InvalidType(f"a tool's handler is a function of a Call, not {type(handler).__name__}")
        tool = Tool(
            name=name,
            description=description.strip(),
            parameters=_parameters(name, spec.get("parameters")),
            handler=handler,
            annotations=dict(annotations),
            plugin=plugin,
        )
        self._tools[name] = tool
        return tool

    def register_function(
        self,
        function: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        *,
        plugin: str | None = None,
    ) -> Tool:
        """Add a plain function as a tool, the shape the `register_tools` hook hands plugins: its name and
        docstring's first line by default, its parameters from its signature (`str`, `int`, `float`,
        `bool`; those without a default are required). A parameter named `call` receives the `Call`."""
        if not callable(function):
            raise InvalidType(f"a tool is a function, not {describe(function)}")
        name = getattr(function, "__name__", "") if name is None else name
        if description is None:
            description = (inspect.getdoc(function) or "").strip().split("\n", 1)[0]
        try:
            hints = inspect.get_annotations(function, eval_str=True)
        except Exception:  # an annotation naming what its module never imported: read them as written
            hints = inspect.get_annotations(function)
        signature = inspect.signature(function).parameters
        properties: dict[str, Any] = {}
        required = []
        for param in signature.values():
            if param.name == "call":
                continue
            kind = _JSON_TYPES.get(hints.get(param.name))
            if kind is None or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise _refuse(str(name), f"parameter {param.name} is a str, int, float or bool")
            properties[param.name] = {"type": kind}
            if param.default is param.empty:
                required.append(param.name)
        wants_call = "call" in signature

        def handler(call: Call) -> Any:
            return function(**call.arguments, **({"call": call} if wants_call else {}))

        parameters = {"type": "object", "properties": properties, "required": required}
        return self.register(
            name, {"description": description, "parameters": parameters}, handler, plugin=plugin
        )

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def copy(self) -> Registry:
        return Registry(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())


# -- definitions ------------------------------------------------------------------------------------------


def _name(prefix: object, tool: str) -> str:
    if not isinstance(prefix, str) or (prefix and not PREFIX.fullmatch(prefix)):
        raise InvalidValue(
            f"a prefix is letters, digits, _ or - starting with a letter or _, not {describe(prefix)}"
        )
    if not NAME.fullmatch(prefix + tool):
        raise InvalidValue(
            f"prefix {prefix!r} makes {prefix + tool!r}, which APIs refuse: a tool name is at most 64 "
            "letters, digits, _ or -, not starting with a digit or -"
        )
    return prefix + tool


def _schema(tool: Tool, with_subject: bool, strict: bool) -> dict[str, Any]:
    properties = copy.deepcopy(dict(tool.parameters["properties"]))
    required = list(tool.parameters["required"])
    if with_subject:
        properties = {SUBJECT: dict(SUBJECT_SCHEMA), **properties}
        required = [SUBJECT, *required]
    if strict:
        return _strict(properties, required)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _strict(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """OpenAI's strict mode: every property required, the optional ones nullable (null means absent to the
    dispatcher), no other properties, and only `STRICT_KEYWORDS`."""
    found = {}
    for field, schema in properties.items():
        schema = {k: v for k, v in schema.items() if k in STRICT_KEYWORDS}
        if field not in required:
            schema["type"] = [schema["type"], "null"]
            if "enum" in schema:
                schema["enum"] = [*schema["enum"], None]
        found[field] = schema
    return {"type": "object", "properties": found, "required": list(found), "additionalProperties": False}


def definition(
    tool: Tool, style: str, *, prefix: str = "", with_subject: bool = False, strict: bool = False
) -> dict[str, Any]:
    """One tool in one style (for `gemini`, one function declaration); `strict` (openai and responses
    only) makes it an OpenAI strict-mode function."""
    name = _name(prefix, tool.name)
    if strict and style not in STRICT_STYLES:
        raise InvalidValue(f"strict is for the styles {', '.join(STRICT_STYLES)}, not {describe(style)}")
    schema = _schema(tool, with_subject, strict)
    if style == "openai":
        function = {"name": name, "description": tool.description, "parameters": schema}
        return {"type": "function", "function": function | ({"strict": True} if strict else {})}
    if style == "responses":
        # The Responses API makes a function strict unless told otherwise, and strict mode wants every
        # property required: only a strict schema is sent as strict.
        return {
            "type": "function",
            "name": name,
            "description": tool.description,
            "parameters": schema,
            "strict": strict,
        }
    if style == "anthropic":
        return {"name": name, "description": tool.description, "input_schema": schema}
    if style == "mcp":
        found = {"name": name, "description": tool.description, "inputSchema": schema}
        if tool.annotations:
            found["annotations"] = dict(tool.annotations)
        return found
    if style == "gemini":
        declaration: dict[str, Any] = {"name": name, "description": tool.description}
        if schema["properties"]:  # Gemini refuses an object schema without properties
            declaration["parameters"] = schema
        return declaration
    raise InvalidValue(f"style is one of {', '.join(STYLES)}, not {describe(style)}")
