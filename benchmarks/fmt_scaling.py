"""How `rulespec fmt` scales with the size of a file: seconds and lines a second.

    python benchmarks/fmt_scaling.py [--lines 10000,100000] [--skip-sanguosha]

For each size, two generated files (comment lines only; real declarations: options, variables,
functions, cards in an aligned table, phases with nested blocks, continuation lines and comments)
are formatted twice, as `rulespec fmt --check` does (rulespec.lang.fmt.format_file): in the canonical
layout already, and with their whitespace scrambled (formatted, then the syntax trees of both
texts compared, as before writing). Then games/sanguosha.rules the same way. Wall-clock and CPU
seconds (the machine may be shared: CPU time is the steadier), and lines a second of CPU. The
formatter is linear: the lines a second stay about the same from size to size.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulespec.lang.fmt import format_file, format_text  # noqa: E402

HEADER = 'game "Generated" {\n  players 2..4\n  start p0\n}\n\nenum Suit { clubs, hearts }\nproperty suit: Suit\n' \
         'property rank: int\nzone pile: pile hidden\n'


def _block(i: int) -> str:
    """About 30 lines of declarations named after i (they parse; they are not meant to check)."""
    return f"""
# Block {i}: a variable, a function, cards and a phase.
var count_{i}: int = 0
option limit_{i}: int = {i % 7 + 1} "How many times block {i} may run."
def total_{i}(a: int, b: int): int = if a >= b then -a else (a + b) * 2 % 3 - max(a, -b)
def ready_{i}(): bool = count_{i} < limit_{i} and
    count_{i} >= 0   # a continuation line
card "A{i}"     {{ suit: clubs    rank: 1 }}
card "B{i}"     {{ suit: hearts   rank: 10 }}
phase p{i} {{
  enter {{
    if count_{i} == 1 and
       limit_{i} == 2 {{
      log "block {i}: {{count_{i}}}"
    }}
    else {{ count_{i} += 1 }}
    # a comment inside a block
    count_{i} = total_{i}(count_{i}, [1, -2, 3][0])
  }}
  after {{ count_{i} += 1  count_{i} = count_{i} - 1 }}
  next p{i + 1} when count_{i} > limit_{i}
      or count_{i} < 0
}}
"""


def declarations(lines: int) -> str:
    parts, n, i = [HEADER], HEADER.count("\n"), 0
    while n < lines:
        b = _block(i)
        parts.append(b)
        n += b.count("\n")
        i += 1
    parts.append(f"phase p{i} {{ next p0 }}\n")
    return "".join(parts)


def comments(lines: int) -> str:
    return HEADER + "".join(f"# comment line {i}: commented-out text, a licence, notes\n"
                            for i in range(lines - HEADER.count("\n")))


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[A-Za-z_0-9]+|\.\.|==|!=|<=|>=|\+=|-=|\S')


def scrambled(text: str, seed: int = 1) -> str:
    """The same tokens with other whitespace (as tests/test_fmt.py shuffles it)."""
    rng = random.Random(seed)
    out = []
    for line in text.split("\n"):
        toks = _TOKEN.findall(line)
        gaps = [" " * rng.randint(1, 3) if re.match(r'[\w"]', a) and re.match(r'[\w"]', b) else
                " " * rng.choice([0, 1, 2]) for a, b in zip(toks, toks[1:])]
        out.append(" " * rng.randint(0, 6) + "".join(t + g for t, g in zip(toks, gaps + [""])))
    return "\n".join(out)


def measure(name: str, text: str, folder: Path) -> None:
    n = text.count("\n") + 1
    for how, source in (("canonical", format_text(text)), ("scrambled", scrambled(text))):
        path = folder / f"{name}-{how}.rules"
        path.write_text(source, encoding="utf-8")
        t0, c0 = time.perf_counter(), time.process_time()
        format_file(path)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"| {name} | {how} | {n:,} | {wall:.2f} | {cpu:.2f} | {n / cpu:,.0f} |", flush=True)
        path.unlink()


def main(argv: list | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", default="10000,100000", help="comma-separated file sizes in lines")
    ap.add_argument("--skip-sanguosha", action="store_true")
    args = ap.parse_args(argv)
    format_text(HEADER)   # the parser's tables, built once a process
    print("| file | layout | lines | wall s | CPU s | lines/s (CPU) |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(x) for x in args.lines.split(",")):
            measure(f"comments-{size}", comments(size), Path(tmp))
            measure(f"declarations-{size}", declarations(size), Path(tmp))
        if not args.skip_sanguosha:
            path = ROOT / "games" / "sanguosha.rules"
            measure("sanguosha", path.read_text(encoding="utf-8"), Path(tmp))


if __name__ == "__main__":
    main()
