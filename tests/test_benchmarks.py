"""benchmarks/peers.py: the side-by-side table runs with or without the peers installed."""
import sys

from measure import ROOT, benchmark_module


def _peers_module():
    return benchmark_module("peers")


def test_time_games_counts_decisions():
    peers = _peers_module()
    calls = []
    us, games, decisions = peers.time_games(lambda seed: calls.append(seed) or 10, 0.0)
    assert games == 1 and decisions == 10 and calls == [0] and us >= 0


def test_the_table_has_every_shipped_game(tmp_path, capsys):
    peers = _peers_module()
    games = tmp_path / "games"
    games.mkdir()
    for name in ("chuhan.rules", "crazy_eights.rules"):  # the two quickest games keep the test short
        (games / name).write_text((ROOT / "games" / name).read_text(encoding="utf-8"), encoding="utf-8")
    assert peers.main(["--seconds", "0.01", "--games-dir", str(games)]) == 0
    out = capsys.readouterr().out
    for engine in ("compiled", "interpreted"):  # every game on both engines
        assert f"| chuhan.rules (2p) {engine} |" in out and f"| crazy_eights.rules (4p) {engine} |" in out
    for line in out.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert float(cells[1]) > 0 and int(cells[2]) >= 1 and int(cells[3]) >= 1


def test_engines_take_turns_and_seeds_go_on_across_turns():
    peers = _peers_module()
    seeds = []
    timer = peers.Timer(lambda seed: seeds.append(seed) or 3)
    timer.turn(0.0)
    timer.turn(0.0)
    us, games, decisions = timer.result()
    assert seeds == [0, 1] and games == 2 and decisions == 6 and us >= 0


def test_one_engine_and_one_game(tmp_path, capsys):
    peers = _peers_module()
    assert peers.main(["--seconds", "0.01", "--engines", "interpreted", "--only", "crazy_eights"]) == 0
    out = capsys.readouterr().out
    assert "| crazy_eights.rules (4p) interpreted |" in out and "compiled |" not in out and "chuhan" not in out
    import pytest
    with pytest.raises(SystemExit):
        peers.main(["--engines", "fast"])
    assert "--engines" in capsys.readouterr().err


def test_bad_rounds_are_refused(capsys):
    import pytest
    peers = _peers_module()
    with pytest.raises(SystemExit):
        peers.main(["--rounds", "0"])
    assert "--rounds" in capsys.readouterr().err
