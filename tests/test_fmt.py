"""`rulespec fmt` (rulespec/lang/fmt.py) and the TextMate grammar (editors/rulespec.tmLanguage.json).

The formatter only rewrites whitespace: these tests shuffle the whitespace of every shipped game
and every rules file under tests/ at random, format the result, and check that it means the
same (the AST, without source positions, is the original's), keeps every comment in place, is
idempotent and follows the layout rules; and that the shipped files are in that layout already.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
from pathlib import Path

import pytest

from rulespec.tools.cli import main
from rulespec.lang.errors import RulesError
from rulespec.lang.fmt import ast_shape, format_text
from rulespec.lang.parser import parse_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.rules"))


def _parses(p: Path) -> bool:
    try:
        parse_text(p.read_text(encoding="utf-8"), str(p))
        return True
    except RulesError:
        return False


TEST_RULES = sorted(p for p in (ROOT / "tests").rglob("*.rules") if _parses(p))
ALL_RULES = GAMES + TEST_RULES


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------- the layout
def test_spacing_and_indentation():
    messy = ('game  "G"{\n'
             'players 2 .. 4\n'
             '      score p :points [p]+1\n'
             '}\n')
    assert format_text(messy) == 'game "G" {\n  players 2..4\n  score p: points[p] + 1\n}\n'


def test_operators_calls_indexes_lists_and_unary_minus():
    text = ('def f(a:int,b :int):int=if a>=b then -a else(a+b)*2%3-max(a,-b)\n'
            'var v:list[int]=[1,-2 , 3]\n'
            'def g(): bool = not(1 in [1, 2]) and v[0]== -1 or 1..3 == [ 1 ,2,3 ]\n')
    assert format_text(text) == (
        'def f(a: int, b: int): int = if a >= b then -a else (a + b) * 2 % 3 - max(a, -b)\n'
        'var v: list[int] = [1, -2, 3]\n'
        'def g(): bool = not (1 in [1, 2]) and v[0] == -1 or 1..3 == [1, 2, 3]\n')


def test_powers_scaling_assignments_and_ranged_options():
    text = ('option seat:int in 1 .. 4=1\n'
            'def f(a:int):int=2^a^-1+(-a)^2\n'
            'phase p { enter { x*=2  y/=  3 x [p]*=-1 } }\n')
    assert format_text(text) == ('option seat: int in 1..4 = 1\n'
                                 'def f(a: int): int = 2 ^ a ^ -1 + (-a) ^ 2\n'
                                 'phase p { enter { x *= 2  y /= 3 x[p] *= -1 } }\n')


def test_keywords_used_as_names_are_called_like_names():
    # 'target' is a keyword (stack ... target expr) and a name here
    text = 'def target(): int = 2\ndef t(): int = target( ) + count (players)\n'
    assert format_text(text) == 'def target(): int = 2\ndef t(): int = target() + count(players)\n'


def test_blocks_indent_by_brace_depth_and_continuations_keep_their_shape():
    text = ('phase p {\n'
            '        enter {\n'
            'if x == 1 and\n'
            '       y == 2 {\n'
            '   log "a"\n'
            '              }\n'
            '   else   {  log "b" }\n'
            '}\n'
            '  next q when a\n'
            '      or b\n'
            '}\n')
    assert format_text(text) == ('phase p {\n'
                                 '  enter {\n'
                                 '    if x == 1 and\n'
                                 '           y == 2 {\n'  # 7 past its 'if', as it was
                                 '      log "a"\n'
                                 '    }\n'
                                 '    else { log "b" }\n'
                                 '  }\n'
                                 '  next q when a\n'
                                 '      or b\n'
                                 '}\n')


def test_a_continuation_is_indented_at_least_one_step_past_its_statement():
    text = 'def f(): bool =\nx and\ny\n'
    assert format_text(text) == 'def f(): bool =\n  x and\n  y\n'


def test_comments_stay_in_place():
    text = ('# head\n'
            'game "G" {   # after the brace\n'
            '# inside, at depth 1\n'
            '      players 2..4    # aligned\n'
            '  score p: 0#tight\n'
            '    # before the brace\n'
            '}\n'
            '   # at the end\n')
    assert format_text(text) == ('# head\n'
                                 'game "G" {   # after the brace\n'
                                 '  # inside, at depth 1\n'
                                 '  players 2..4    # aligned\n'
                                 '  score p: 0 #tight\n'
                                 '  # before the brace\n'
                                 '}\n'
                                 '# at the end\n')


def test_a_comment_inside_a_continuation_follows_its_indentation():
    text = 'def f(): bool =\n  x\n# why\n    and y\n'
    assert format_text(text) == 'def f(): bool =\n  x\n    # why\n    and y\n'


def test_strings_and_templates_are_kept_byte_for_byte():
    text = 'game "G  {x}" {\n  doc "a  {  count( players )+1 }\\"  # not a comment  "\n}\n'
    assert format_text(text) == text


def test_blank_lines_trailing_spaces_and_the_final_newline():
    text = '\n\ngame "G" {   \n\n\n\n  players 2..4\t\n}\n\n\n'
    assert format_text(text) == 'game "G" {\n\n  players 2..4\n}\n'
    assert format_text('game "G" {}') == 'game "G" {}\n'
    assert format_text("") == ""


def test_line_ends_and_byte_order_mark():
    assert format_text('\ufeffgame "G" {\r\n  players 2..4\r\n}\r\n') == 'game "G" {\n  players 2..4\n}\n'


def test_aligned_card_tables_and_items_set_apart_on_one_line_are_kept():
    text = ('card "A"    { suit: clubs    rank: 1 }\n'
            'card "10"   { suit: hearts   rank: 10 }\n'
            'phase p { after { turns += 1  active = next_player(active) }  next p }\n')
    assert format_text(text) == text
    # but not elsewhere
    assert format_text('zone z:   pile    hidden\n') == 'zone z: pile hidden\n'


def test_a_syntax_error_is_a_rules_error():
    with pytest.raises(RulesError) as e:
        format_text('game "x" {\n  players 2..\n}\n', "a.rules")
    assert e.value.diagnostics[0].location() == "a.rules:3:1"


# ---------------------------------------------------------------------- every rules file
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_0-9]+|\.\.|==|!=|<=|>=|\+=|-=|\*=|/=|\S')


def _shuffle_whitespace(text: str, seed: int) -> str:
    """The same tokens with other whitespace: indentation, gaps, trailing spaces, blank lines."""
    rng = random.Random(seed)
    out = []
    for line in text.split("\n"):
        toks = _TOKEN.findall(line)
        parts = [" " * rng.randint(0, 7)]
        for i, t in enumerate(toks):
            if i:
                prev = toks[i - 1]
                wordy = re.match(r'[\w"]', prev) and re.match(r'[\w"]', t)
                parts.append(" " * (rng.randint(1, 3) if wordy else rng.choice([0, 0, 1, 2])))
            parts.append(t)
        out.append("".join(parts) + rng.choice(["", "", " ", "\t"]))
        if rng.random() < 0.03:
            out.append(" " * rng.randint(0, 3))
    return "\n".join(out)


def _comments(text: str) -> list:
    """For each non-blank line: (its comment or None, whether the comment is the whole line)."""
    out = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        toks = _TOKEN.findall(line)
        com = toks[-1].rstrip() if toks and toks[-1].startswith("#") else None
        out.append((com, len(toks) == 1 and com is not None))
    return out


@pytest.mark.parametrize("path", ALL_RULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_rules_file(path):
    text = path.read_text(encoding="utf-8")
    original = ast_shape(parse_text(text, str(path)))
    # the shipped files are in the canonical layout
    assert format_text(text, str(path)) == text, f"run: rulespec fmt {path.relative_to(ROOT)}"
    messy = _shuffle_whitespace(text, seed=len(text))
    assert messy != text
    formatted = format_text(messy, str(path))
    assert ast_shape(parse_text(formatted, str(path))) == original  # the same meaning
    assert format_text(formatted, str(path)) == formatted  # idempotent
    assert _comments(formatted) == _comments(messy)  # every comment in place
    lines = formatted.split("\n")
    assert lines[-1] == "" and lines[-2] != ""  # one newline at the end
    assert all(line == line.rstrip() for line in lines)
    assert "\n\n\n" not in formatted
    # indentation: two spaces a level, never deeper than the braces allow on a statement's first line
    assert all((len(line) - len(line.lstrip(" "))) % 2 == 0 for line in lines if line.lstrip().startswith("}"))


def test_the_ast_comparison_ignores_only_positions():
    a = parse_text('var x: int = 1 + 2\n')
    assert ast_shape(a) == ast_shape(parse_text('\n\nvar  x :int=1+2   # c\n'))
    assert ast_shape(a) != ast_shape(parse_text('var x: int = 1 + 3\n'))


def test_the_parse_tree_comparison_ignores_only_positions():
    from rulespec.lang.fmt import _same_tree, _tree
    a = _tree('var x: int = 1 + 2\n', "a")
    assert _same_tree(a, _tree('\n\nvar  x :int=1+2   # c\n', "b"))
    assert not _same_tree(a, _tree('var x: int = 1 + 3\n', "a"))
    assert not _same_tree(a, _tree('var x: int = 1 - 2\n', "a"))
    assert not _same_tree(_tree('def f(): int = -1\n', "a"), _tree('def f(): int = - -1\n', "a"))


# ---------------------------------------------------------------------- rulespec fmt
MESSY = 'game  "G"{\nplayers 2 .. 4   # eol\n# own line\n}\n\n\n'
NEAT = 'game "G" {\n  players 2..4   # eol\n  # own line\n}\n'


def test_fmt_rewrites_files_in_place(tmp_path):
    a, b = tmp_path / "a.rules", tmp_path / "b.rules"
    a.write_text(MESSY, encoding="utf-8")
    b.write_text(NEAT, encoding="utf-8")
    os.chmod(a, 0o640)
    code, out, err = run("fmt", a, b)
    assert code == 0 and out == ""
    assert a.read_text(encoding="utf-8") == NEAT and b.read_text(encoding="utf-8") == NEAT
    assert f"{a}: reformatted" in err and str(b) not in err
    assert os.stat(a).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.rules", "b.rules"]  # no temporary file left
    assert run("fmt", a, b)[0] == 0


def test_fmt_check_names_the_files_that_would_change_and_writes_nothing(tmp_path):
    a, b = tmp_path / "a.rules", tmp_path / "b.rules"
    a.write_text(MESSY, encoding="utf-8")
    b.write_text(NEAT, encoding="utf-8")
    code, out, err = run("fmt", "--check", a, b)
    assert code == 1
    assert f"{a}: would be reformatted" in err and str(b) not in err
    assert a.read_text(encoding="utf-8") == MESSY
    code, out, err = run("fmt", "--check", b)
    assert code == 0 and "already formatted" in err


def test_fmt_check_sees_crlf_line_ends(tmp_path):
    a = tmp_path / "a.rules"
    a.write_bytes(NEAT.replace("\n", "\r\n").encode())
    assert run("fmt", "--check", a)[0] == 1
    assert run("fmt", a)[0] == 0
    assert a.read_bytes() == NEAT.encode()


def test_fmt_diff_prints_a_unified_diff_and_writes_nothing(tmp_path):
    a = tmp_path / "a.rules"
    a.write_text(MESSY, encoding="utf-8")
    code, out, err = run("fmt", "--diff", a)
    assert code == 0
    assert out.startswith(f"--- {a}\n+++ {a} (formatted)\n@@")
    assert '-game  "G"{\n' in out and '+game "G" {\n' in out
    assert a.read_text(encoding="utf-8") == MESSY
    code, out, err = run("fmt", "--diff", "--check", a)
    assert code == 1 and out


def test_fmt_leaves_a_file_that_does_not_parse_alone(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text('game "x" {\n  players 2..\n}\n', encoding="utf-8")
    good = tmp_path / "good.rules"
    good.write_text(MESSY, encoding="utf-8")
    code, out, err = run("fmt", bad, tmp_path / "missing.rules", good)
    assert code == 1
    assert f"{bad}:3:1: error: unexpected '}}'" in err
    assert f"{tmp_path / 'missing.rules'}:1:1: error: no such file" in err
    assert "Traceback" not in err
    assert bad.read_text(encoding="utf-8") == 'game "x" {\n  players 2..\n}\n'
    assert good.read_text(encoding="utf-8") == NEAT  # the others are still formatted


def test_fmt_leaves_a_file_alone_when_the_result_would_parse_differently(tmp_path, monkeypatch):
    import rulespec.lang.fmt as F
    real = F._format
    # a broken layout that changes a token (the token check of format_text is bypassed here)
    monkeypatch.setattr(F, "_format", lambda text, path: (real(text, path)[0].replace("2..4", "2..5"),
                                                          real(text, path)[1]))
    a = tmp_path / "a.rules"
    a.write_text(MESSY, encoding="utf-8")
    code, out, err = run("fmt", a)
    assert code == 1 and "would change the meaning" in err and "Traceback" not in err
    assert a.read_text(encoding="utf-8") == MESSY


def test_fmt_formats_a_file_nested_deeper_than_the_python_stack(tmp_path):
    deep = tmp_path / "deep.rules"
    deep.write_text("def f(): int =  " + "-" * 3000 + "1\n", encoding="utf-8")
    code, out, err = run("fmt", deep)
    assert code == 0 and "Traceback" not in err
    assert deep.read_text(encoding="utf-8") == "def f(): int = " + "-" * 3000 + "1\n"


def test_fmt_usage():
    assert run("fmt")[0] == 2
    assert run("fmt", "--help")[0] == 0


# ---------------------------------------------------------------------- the TextMate grammar
TM = ROOT / "editors" / "rulespec.tmLanguage.json"
GRAMMAR = (ROOT / "rulespec" / "lang" / "grammar.lark").read_text(encoding="utf-8")


def _grammar_keywords() -> set:
    """The quoted words of grammar.lark (outside comments) and the words of its keyword patterns."""
    code = "\n".join(line.split("//")[0] for line in GRAMMAR.splitlines())
    words = set(re.findall(r'"([A-Za-z_]+)"', code))
    for name in ("QUANT", "TIES", "UNTIL_MOVED"):
        pattern = re.search(rf"^{name}[.\d]*:\s*/(.*)/\s*$", code, re.M).group(1)
        words |= set(re.findall(r"[a-z]{2,}", re.sub(r"\\[sbw]", " ", pattern)))
    return words


def _patterns(node):
    """Every regex of the grammar (match, begin, end), with where it is."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("match", "begin", "end") and isinstance(v, str):
                yield v
            else:
                yield from _patterns(v)
    elif isinstance(node, list):
        for v in node:
            yield from _patterns(v)


def _tm():
    return json.loads(TM.read_text(encoding="utf-8"))


def test_tmlanguage_is_valid_json_naming_its_scope():
    g = _tm()
    assert g["scopeName"] == "source.rulespec" and "rules" in g["fileTypes"]
    # every include points at a rule of the repository
    text = TM.read_text(encoding="utf-8")
    for ref in re.findall(r'"include": "#([^"]+)"', text):
        assert ref in g["repository"], ref


def test_tmlanguage_regexes_compile():
    # TextMate engines use Oniguruma; these patterns keep to what Python's re reads the same way
    # (no possessive quantifiers, no \h, no (?<name>...)); one difference: '$' matches at each
    # line end in Oniguruma, which is re.MULTILINE here
    for rx in _patterns(_tm()):
        re.compile(rx, re.M)


def test_tmlanguage_has_every_keyword_of_the_grammar():
    keywords = _grammar_keywords()
    assert {"game", "phase", "let", "choose", "any", "argmax", "ties", "last", "top", "optional"} <= keywords
    regexes = [re.sub(r"\\[A-Za-z]", " ", rx) for rx in _patterns(_tm())]  # without \b, \s, ...
    missing = [k for k in sorted(keywords) if not any(re.search(rf"(?<![A-Za-z_]){k}(?![A-Za-z_])", rx)
                                                   for rx in regexes)]
    assert missing == []


def _scopes(line: str) -> dict:
    """A crude TextMate: the first pattern (in order) of the expression rules matching each word."""
    g = _tm()
    rules = g["repository"]["expression-no-string"]["patterns"]
    found = {}
    pos = 0
    while pos < len(line):
        if line[pos].isspace():
            pos += 1
            continue
        for r in rules:
            m = re.compile(r["match"]).match(line, pos)
            if m and m.end() > pos:
                found.setdefault(m.group(), r["name"])
                pos = m.end()
                break
        else:
            pos += 1
    return found


def test_tmlanguage_scopes_of_a_sample():
    g = _tm()
    assert re.match(g["repository"]["comment"]["patterns"][0]["match"], "# a comment").end() == 11
    s = _scopes("let n = count c in hand[p] where c.rank >= 10 and not done: count(xs) - 1..3")
    assert s["let"].startswith("keyword.control")
    assert s["count"].startswith("keyword.operator.quantifier")  # the first: a quantifier
    assert s["10"].startswith("constant.numeric")
    assert s[">="].startswith("keyword.operator.comparison")
    assert s["and"].startswith("keyword.operator.logical")
    assert s["hand"].startswith("variable.other")
    card = g["repository"]["card-name"]["patterns"][0]
    m = re.search(card["match"], 'card "red A" { value: 1 }')
    assert m.group(3) == "red A"
    string = g["repository"]["string"]["patterns"][0]
    hole = string["patterns"][1]
    assert re.match(hole["begin"], "{count(x)}") and re.search(hole["end"], "count(x)}")


# ---------------------------------------------------------------------- linear time
def _steps(text: str) -> int:
    """How much work format_text does on `text`, counted, not timed: the lines run in
    rulespec/lang/fmt.py plus the Python functions called anywhere (the parser, the tokenizer)."""
    import sys

    import rulespec.lang.fmt as F
    here = F.__file__
    count = 0

    def on_line(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return on_line

    def on_call(frame, event, arg):
        nonlocal count
        count += 1
        return on_line if frame.f_code.co_filename == here else None

    format_text(text)  # warm: the grammar and the parser's tables are built once a process
    old = sys.gettrace()
    sys.settrace(on_call)
    try:
        format_text(text)
    finally:
        sys.settrace(old)
    return count


def _sized(n: int) -> str:
    """A file of about 4n lines: a run of n comment lines, then n small declarations with comments
    inside blocks and continuation lines between them."""
    head = 'game "G" {\n  players 2..4\n}\n' + "".join(f"# note {i}\n" for i in range(n))
    body = "".join(f"var v{i}: int = {i}   # why\nphase p{i} {{\n  # inside\n  enter {{ v{i} = v{i} +\n"
                   f"# between\n      1 }}\n}}\n" for i in range(n // 8))
    return head + body


def test_formatting_takes_linear_steps_in_the_size_of_the_file():
    # 8 times the text must cost about 8 times the steps (a quadratic step, e.g. a look-ahead
    # over every following comment line, made it ~60 times); the bound is generous
    small, large = _steps(_sized(150)), _steps(_sized(1200))
    assert large < 16 * small, (small, large, large / small)
