# SPDX-License-Identifier: Apache-2.0
"""The CLI's shape (issue 21): its files grouped in directories by what they
do, each group using only the groups below it; no two of its modules
include each other in a circle, no function is longer than 60 lines (but
the help text), and no Keccak backend is named in it: what the provider can
do is asked of EVP.
In the provider's glue, every object a header declares is defined in the
.c of the same name.  CONTRIBUTING.md's worked example of an option for a
provider parameter is the code as it is, and the parameter options' rows
agree with the provider's."""
import glob
import os
import re

import readme

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
CLI = os.path.join(ROOT, "cli")
GLUE = os.path.join(ROOT, "provider", "glue")


# The CLI's groups, lowest first: a module includes only modules of its own
# group and of those before it (main.c, at the top, any).
CLI_GROUPS = ["base", "front", "input", "run", "report", "check", "parts"]


def sources(directory):
    """The .c and .h files of a directory and the directories below it."""
    return glob.glob(os.path.join(directory, "**", "*.[ch]"), recursive=True)


def module_graph(directory):
    """Module name -> the modules its .c and .h include ("x.h" -> x, and
    "group/x.h" -> x, the path from the directory)."""
    graph = {}
    for path in sources(directory):
        name = os.path.splitext(os.path.basename(path))[0]
        for used in re.findall(r'^#include "((?:\w+/)?\w+)\.h"', open(path).read(), re.M):
            base = used.split("/")[-1]
            if base != name and os.path.exists(os.path.join(directory, used + ".h")):
                graph.setdefault(name, set()).add(base)
        graph.setdefault(name, set())
    return graph


def group_of(path):
    parts = os.path.relpath(path, CLI).split(os.sep)
    return parts[0] if len(parts) > 1 else None


def test_cli_groups_use_only_those_below():
    """cli/base, front, input, run, report, check, parts: the layout is the
    architecture, and an include up or across it is a mistake."""
    wrong = []
    for path in sources(CLI):
        mine = group_of(path)
        assert mine is None or mine in CLI_GROUPS, f"{path}: a group CLI_GROUPS lacks"
        for used in re.findall(r'^#include "(\w+)/\w+\.h"', open(path).read(), re.M):
            if mine is not None and CLI_GROUPS.index(used) > CLI_GROUPS.index(mine):
                wrong.append(f"{os.path.relpath(path, CLI)} includes {used}/")
    assert wrong == []
    assert [os.path.relpath(p, CLI) for p in glob.glob(os.path.join(CLI, "*.[ch]"))] == ["main.c"]


def find_circle(graph):
    state, path = {}, []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_include_circle_in_the_cli():
    circle = find_circle(module_graph(CLI))
    assert circle is None, " -> ".join(circle)


# Where the parsed command line (front/options.h's struct options) may go:
# front/ reads it and main.c hands each stage a struct of what that stage
# uses; parts.c resolves the options again once the records of --combine
# have named the algorithm.
OPTIONS_USERS = {"main.c", "parts/parts.c", "parts/parts.h"}


def test_each_stage_is_given_what_it_uses_not_the_options():
    """The hasher, the road, the printers and check mode take a hash_spec,
    a name_spec, a tree_spec, a check_spec or a line_style, never the whole
    of what the user said."""
    use = re.compile(r"\boptions\s*\*|\boptions\s+\w+\s*[;=]")
    comment = re.compile(r"/\*.*?\*/", re.S)
    found = sorted(os.path.relpath(p, CLI) for p in sources(CLI)
                   if group_of(p) != "front" and use.search(comment.sub("", open(p).read())))
    assert set(found) <= OPTIONS_USERS, found


def test_messages_depend_on_nothing_of_ksum():
    assert module_graph(CLI)["messages"] == set()


def long_functions(directory, most=60):
    found = []
    for path in sorted(p for p in sources(directory) if p.endswith(".c")):
        lines = open(path).read().split("\n")
        start = name = None
        for i, line in enumerate(lines):
            if line == "{":
                j = i - 1
                while j > 0 and "(" not in lines[j]:
                    j -= 1
                start, name = i, re.search(r"(\w+)\s*\(", lines[j]).group(1)
            elif line == "}" and start is not None:
                if i - start - 1 > most:
                    found.append(f"{os.path.basename(path)}:{name} ({i - start - 1} lines)")
                start = None
    return found


def test_no_long_function_in_the_cli():
    assert long_functions(CLI) == []


def test_no_backend_name_in_the_cli():
    """What the provider can do is asked of it (KSUM_PARAM_LANES), never
    inferred from a backend's name.  The CLI's own base64 decoder
    (base/encoding.c) chooses its own instructions, with the compiler's CPU
    test, not the provider's backend: its lines saying so are let be."""
    names = re.compile(r"\b(portable8?|bmi2|avx2|avx512)\b")
    own = re.compile(r'__builtin_cpu_supports\("avx2"\)|target\("avx2"\)|_avx2\b')
    found = [f"{os.path.basename(p)}:{n}" for p in sources(CLI)
             for n, line in enumerate(open(p), 1)
             if names.search(own.sub("", line) if p.endswith("encoding.c") else line)]
    assert found == []


def test_glue_objects_defined_where_declared():
    """algorithms.h's ksum_algs was defined in provider.c, which returned the
    dispatch tables of digests.c and kmac.c that read it: a circle."""
    misplaced = []
    for header in glob.glob(os.path.join(GLUE, "*.h")):
        base = os.path.splitext(os.path.basename(header))[0]
        for name in re.findall(r"^extern const \w+ (\w+)\[", open(header).read(), re.M):
            defined = [os.path.basename(c) for c in glob.glob(os.path.join(GLUE, "*.c"))
                       if re.search(rf"^const \w+ {name}\[", open(c).read(), re.M)]
            if defined != [base + ".c"]:
                misplaced.append(f"{name} declared in {base}.h, defined in {defined}")
    assert misplaced == []


def test_no_include_circle_in_the_glue():
    circle = find_circle(module_graph(GLUE))
    assert circle is None, " -> ".join(circle)


def table(path, opening):
    """The text of the C array that opens with `opening`, up to its "};"."""
    text = open(os.path.join(ROOT, path)).read()
    start = text.index(opening)
    return text[start:text.index("\n};", start)]


def test_the_worked_example_of_a_parameter_option_is_the_code():
    """Each block of the example is in its file as shown: the name in
    ksumprov.h, the rule in params.c's rules[], the row in option_rows[]."""
    name, rule, row = readme.blocks("Adding an option for a provider parameter", "c",
                                    doc="CONTRIBUTING.md")
    assert name in open(os.path.join(ROOT, "include", "ksumprov.h")).read()
    assert rule in table("provider/glue/params.c", "static const rule rules[] = {")
    assert row in table("cli/front/options.c", "const option_row option_rows[] = {")


PARAM_ROW = re.compile(r'\{\.name = "(--[a-z0-9-]+)",[^{}]*?\.takes = TAKES_PARAM\((\d+)\),\s+'
                       r'\.param = (KSUM_PARAM_\w+),\s+\.type = (PARAM_\w+),', re.S)


def test_parameter_options_have_their_own_numbers_and_the_providers_rules():
    """A parameter option's number is its bit (TAKES_PARAM) and its slot in
    options.param: each once, below OPTIONS_PARAMS_MAX; its parameter has a
    macro in ksumprov.h and a rule in params.c."""
    text = table("cli/front/options.c", "const option_row option_rows[] = {")
    rows = PARAM_ROW.findall(text)
    # every TAKES_PARAM( row of the table is read, whatever options there are
    assert rows and len(rows) == len(re.findall(r"\bTAKES_PARAM\(", text))
    limit = int(re.search(r"#define OPTIONS_PARAMS_MAX (\d+)",
                          open(os.path.join(CLI, "front", "options.h")).read()).group(1))
    numbers = [int(r[1]) for r in rows]
    assert len(set(numbers)) == len(numbers) and max(numbers) < limit
    header = open(os.path.join(ROOT, "include", "ksumprov.h")).read()
    rules = table("provider/glue/params.c", "static const rule rules[] = {")
    for option, _, key, _ in rows:
        assert re.search(rf"^#define {key} ", header, re.M), (option, key)
        assert re.search(rf"\{{{key},", rules), (option, key)

