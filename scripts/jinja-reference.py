#!/usr/bin/env python3
"""Reference renderer for Cairn's template compatibility corpus.

Reads every case of test/templating/corpus/*.json, renders it with Python's
Jinja2 (jinja2.sandbox.SandboxedEnvironment, the environment options of the
case applied, Cairn's address filters and tests added) and either

  --check   prints every case whose recorded `expected`/`error` differs from
            what Jinja2 does now, and exits 1 when there is any mismatch;
  --write   records what Jinja2 does into the corpus files (sets `expected`
            or `error` and removes the other field).

Only the standard library and jinja2 are used.

Error kinds recorded in the corpus (see test/templating/corpus.test.ts):
  syntax       TemplateSyntaxError (including TemplateAssertionError, e.g. an
               unknown filter), or Python's SyntaxError raised while Jinja2
               compiles the template (`{% break %}` outside a loop)
  undefined    UndefinedError
  security     SecurityError
  unavailable  any template using include/import/from/extends (by design a
               Cairn template is one source: Jinja2 itself raises
               TemplateNotFound or TypeError "no loader" for these)
  limit        OverflowError raised by the sandbox's `range` cap (100,000 items)
  type         any other exception Jinja2 raises while rendering
               (TypeError, ValueError, ZeroDivisionError, KeyError, ...)

Environment differences from a bare SandboxedEnvironment, matching the
language the issue defines: the `loopcontrols` extension is enabled so that
`break`/`continue` exist, and the address filters/tests below are registered.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import random
import re
import sys
from typing import Any

import jinja2
from jinja2 import exceptions as jexc
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment, SecurityError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_DIR = os.path.join(ROOT, "test", "templating", "corpus")

OPTION_KEYS = {"trim_blocks", "lstrip_blocks", "keep_trailing_newline", "immutable", "random_seed"}
CASE_KEYS = {"name", "template", "context", "options", "expected", "error"}
ERROR_KINDS = {"syntax", "undefined", "security", "unavailable", "limit", "type"}

# A template that uses one of these tags can never render in Cairn.
UNAVAILABLE_RE = re.compile(r"\{%[-+]?\s*(include|import|from|extends)\b")


# ---------------------------------------------------------------------------
# Cairn address filters and tests (SPEC.md "Address filters and tests").
# Input: a string with or without "/<prefix length>"; a bare address is a host
# (/32 for IPv4, /128 for IPv6); whitespace around it is ignored. Anything else
# is invalid: the filters raise, the tests answer False.
# ---------------------------------------------------------------------------

def _interface(value: Any) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    if not isinstance(value, str):
        raise TypeError(f"not an IP address: {value!r}")
    # Surrounding whitespace (a value pasted from a table or CSV) is not part of the address (issue 27).
    text = value.strip()
    if "/" in text:
        addr, _, length = text.partition("/")
        # Only a decimal prefix length is accepted (no dotted masks).
        if not length.isdigit() or not length.isascii():
            raise ValueError(f"invalid IP address: {value!r}")
    try:
        return ipaddress.ip_interface(text)
    except ValueError:
        raise ValueError(f"invalid IP address: {value!r}") from None


def f_host(value: Any) -> str:
    return str(_interface(value).ip)


def f_cidr(value: Any) -> str:
    iface = _interface(value)
    return f"{iface.ip}/{iface.network.prefixlen}"


def f_prefixlen(value: Any) -> int:
    return _interface(value).network.prefixlen


def f_netmask(value: Any) -> str:
    return str(_interface(value).netmask)


def f_wildcard(value: Any) -> str:
    return str(_interface(value).hostmask)


def f_network(value: Any) -> str:
    return str(_interface(value).network)


def _version(value: Any) -> int | None:
    try:
        return _interface(value).version
    except (TypeError, ValueError):
        return None


def t_ipv4(value: Any) -> bool:
    return _version(value) == 4


def t_ipv6(value: Any) -> bool:
    return _version(value) == 6


def make_env(options: dict[str, Any]) -> SandboxedEnvironment:
    # `immutable`: Jinja2's ImmutableSandboxedEnvironment (list, dict and set mutation refused).
    cls = ImmutableSandboxedEnvironment if options.get("immutable") else SandboxedEnvironment
    env = cls(
        trim_blocks=bool(options.get("trim_blocks", False)),
        lstrip_blocks=bool(options.get("lstrip_blocks", False)),
        keep_trailing_newline=bool(options.get("keep_trailing_newline", False)),
        extensions=["jinja2.ext.loopcontrols"],
    )
    env.filters.update(
        host=f_host,
        cidr=f_cidr,
        prefixlen=f_prefixlen,
        netmask=f_netmask,
        wildcard=f_wildcard,
        network=f_network,
    )
    env.tests.update(ipv4=t_ipv4, ipv6=t_ipv6)
    return env


def render_case(case: dict[str, Any]) -> tuple[str, str, str]:
    """Returns (field, value, detail): field is "expected" or "error"."""
    env = make_env(case.get("options") or {})
    template_src = case["template"]
    try:
        template = env.from_string(template_src)
    except (jexc.TemplateSyntaxError, SyntaxError) as e:
        # Python's own SyntaxError surfaces at compile time for statements
        # Jinja2's parser accepts but its code generator rejects, for example
        # `{% break %}` outside a loop: a syntax error in the template too.
        return "error", "syntax", f"{type(e).__name__}: {e}"
    # `random_seed`: the `random` filter draws from Python's global random, seeded here before each render.
    if "random_seed" in (case.get("options") or {}):
        random.seed(case["options"]["random_seed"])
    try:
        out = template.render(case.get("context") or {})
    except jexc.TemplateSyntaxError as e:
        return "error", "syntax", f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - every exception is classified
        detail = f"{type(e).__name__}: {e}"
        if UNAVAILABLE_RE.search(template_src):
            return "error", "unavailable", detail
        if isinstance(e, SecurityError):
            return "error", "security", detail
        if isinstance(e, jexc.UndefinedError):
            return "error", "undefined", detail
        if isinstance(e, OverflowError) and "range too big" in str(e).lower():
            return "error", "limit", detail
        return "error", "type", detail
    if UNAVAILABLE_RE.search(template_src):
        return "error", "unavailable", "rendered by Jinja2, but unavailable by design"
    return "expected", out, ""


def load_corpus() -> list[tuple[str, list[dict[str, Any]]]]:
    files = sorted(f for f in os.listdir(CORPUS_DIR) if f.endswith(".json"))
    result = []
    for fname in files:
        path = os.path.join(CORPUS_DIR, fname)
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if not isinstance(data, list):
            raise SystemExit(f"{fname}: top level must be a JSON array of cases")
        result.append((path, data))
    return result


def validate(corpus: list[tuple[str, list[dict[str, Any]]]]) -> list[str]:
    problems = []
    seen: dict[str, str] = {}
    for path, cases in corpus:
        fname = os.path.basename(path)
        for i, case in enumerate(cases):
            where = f"{fname}[{i}]"
            if not isinstance(case, dict):
                problems.append(f"{where}: not an object")
                continue
            extra = set(case) - CASE_KEYS
            if extra:
                problems.append(f"{where}: unknown keys {sorted(extra)}")
            name = case.get("name")
            if not isinstance(name, str) or not name:
                problems.append(f"{where}: missing name")
            elif name in seen:
                problems.append(f"{where}: duplicate name {name!r} (also in {seen[name]})")
            else:
                seen[name] = fname
            if not isinstance(case.get("template"), str):
                problems.append(f"{where}: template must be a string")
            if not isinstance(case.get("context", {}), dict):
                problems.append(f"{where}: context must be an object")
            opts = case.get("options", {})
            if not isinstance(opts, dict) or set(opts) - OPTION_KEYS:
                problems.append(f"{where}: bad options {opts!r}")
            if "error" in case and case["error"] not in ERROR_KINDS:
                problems.append(f"{where}: unknown error kind {case['error']!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="report mismatches, exit 1 if any")
    mode.add_argument("--write", action="store_true", help="record Jinja2's results in the corpus")
    parser.add_argument("--verbose", "-v", action="store_true", help="show exception messages")
    parser.add_argument("--only", help="only cases whose name contains this text")
    args = parser.parse_args()

    corpus = load_corpus()
    problems = validate(corpus)
    for p in problems:
        print(f"INVALID {p}")

    total = 0
    mismatches = 0
    for path, cases in corpus:
        fname = os.path.basename(path)
        changed = False
        for case in cases:
            if args.only and args.only not in case.get("name", ""):
                continue
            total += 1
            field, value, detail = render_case(case)
            if args.verbose:
                shown = value if field == "error" else repr(value)
                print(f"{fname}:{case['name']}: {field} {shown}  {detail}")
            recorded_field = "error" if "error" in case else ("expected" if "expected" in case else None)
            ok = recorded_field == field and case.get(field) == value
            if ok:
                continue
            if args.write:
                case.pop("expected", None)
                case.pop("error", None)
                case[field] = value
                changed = True
            else:
                mismatches += 1
                was = case.get(recorded_field) if recorded_field else None
                print(f"MISMATCH {fname}:{case['name']}")
                print(f"  recorded {recorded_field}: {was!r}")
                print(f"  jinja2   {field}: {value!r}  {detail}")
        if args.write and changed:
            ordered = []
            for case in cases:
                out = {k: case[k] for k in ("name", "template", "context", "options") if k in case}
                out.setdefault("context", {})
                out.setdefault("options", {})
                if "error" in case:
                    out["error"] = case["error"]
                elif "expected" in case:
                    out["expected"] = case["expected"]
                ordered.append(out)
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(ordered, fh, indent=2, ensure_ascii=False)
                fh.write("\n")
    print(f"jinja2 {jinja2.__version__}: {total} cases, {mismatches} mismatches, {len(problems)} invalid")
    return 1 if (mismatches or problems) else 0


if __name__ == "__main__":
    sys.exit(main())
