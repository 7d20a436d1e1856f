"""The phase graph: phases and the ways between them, built from the rules and analysed by the checker.

Nodes are phase names plus END; an edge A -> B means phase A can hand over to B
(a ``next`` clause), A -> END means something in A can end the game.  The graph is plain
data (model.PhaseGraph), so that reading a model needs no graph library; ``Model.graph`` gives
it as a networkx DiGraph.
"""
from __future__ import annotations

from . import ast as A
from .model import END, PhaseGraph


def source_text(source: str, span: A.Span) -> str:
    lines = source.split("\n")  # as the parser counts lines (splitlines also breaks at \f, \x1c, ...)
    if span.line == span.end_line and 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.col - 1:span.end_col - 1]
    if 1 <= span.line <= len(lines):
        first = lines[span.line - 1][span.col - 1:]
        rest = lines[span.line:span.end_line - 1]
        last = lines[span.end_line - 1][:span.end_col - 1] if span.end_line <= len(lines) else ""
        return " ".join(x.strip() for x in [first, *rest, last])
    return "?"


class _EndFinder:
    """Can running a block end the game?  Follows effects put on the stack, emitted events'
    triggers and, once anything is stacked, the responses that may answer it."""

    def __init__(self, checker):
        self.effects = getattr(checker, "effects", {})
        self.triggers = getattr(checker, "triggers", [])
        self.responses = [a for a in checker.actions.values() if a.respond_to]
        self.memo: dict = {}

    def block(self, block, seen=frozenset()) -> bool:
        if block is None:
            return False
        return any(self.stmt(s, seen) for s in block.stmts)

    def stmt(self, s, seen) -> bool:
        if isinstance(s, A.EndGame):
            return True
        if isinstance(s, A.If):
            return any(self.block(b, seen) for _, b in s.branches) or self.block(s.else_, seen)
        if isinstance(s, A.For):
            return self.block(s.body, seen)
        if isinstance(s, A.StackStmt):
            key = ("effect", s.effect.name)
            if key in seen:
                return False
            seen = seen | {key}
            e = self.effects.get(s.effect.name)
            if e is not None and (self.block(e.resolve, seen) or self.block(e.cancelled, seen)):
                return True
            return any(self.block(a.effect, seen | {("response", a.name)})
                       for a in self.responses if ("response", a.name) not in seen)
        if isinstance(s, A.Emit):
            key = ("event", s.event.name)
            if key in seen:
                return False
            return any(self.block(t.body, seen | {key}) for t in self.triggers if t.event.name == s.event.name)
        return False

    def engine_events(self) -> bool:
        """Triggers on events the engine raises in every phase."""
        return any(t.event.name in ("phase_start", "phase_end", "action_taken") and self.block(t.body)
                   for t in self.triggers)


def phase_can_end_game(phase: A.PhaseDecl, actions: dict, finder: "_EndFinder | None" = None) -> bool:
    finder = finder or _EndFinder(type("C", (), {"actions": actions})())
    if finder.engine_events():
        return True
    if any(finder.block(b) for b in (phase.enter, phase.after, phase.exit)):
        return True
    return any(a.name in actions and finder.block(actions[a.name].effect) for a in phase.actions)


def build_phase_graph(checker) -> PhaseGraph:
    g = PhaseGraph()
    source = checker.rules.source
    g.add_node(END, has_actions=False, doc="the game is over")
    finder = _EndFinder(checker)
    for p in checker.phases.values():
        g.add_node(p.name, has_actions=bool(p.actions), doc=p.doc,
                   has_effects=any(b is not None and b.stmts for b in (p.enter, p.after, p.exit)))
    for p in checker.phases.values():
        for n in p.nexts:
            if n.target.name in checker.phases:
                if n.cond is not None:
                    label = source_text(source, n.cond.span)
                else:  # an unconditional next after conditional ones is the fallback
                    label = "otherwise" if len(p.nexts) > 1 else ""
                if g.has_edge(p.name, n.target.name):
                    old = g.edges[p.name, n.target.name]["label"]
                    label = f"{old} or {label}" if old and label else ""
                g.add_edge(p.name, n.target.name, label=label)
        if phase_can_end_game(p, checker.actions, finder):
            g.add_edge(p.name, END, label="end game")
    return g


def _loops(g: PhaseGraph, nodes: list) -> list:
    """The strongly connected components of the subgraph on nodes that hold a cycle (Tarjan's
    algorithm, without recursion: a file may declare many phases)."""
    inside = set(nodes)
    succ = {n: [b for b in g.successors(n) if b in inside] for n in nodes}
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    out: list = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succ[v]:
                    out.append(comp)
            if work:  # back in the caller: pass the low link up
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def analyse_phase_graph(checker, g: PhaseGraph) -> None:
    model_start = checker.game.start.name if checker.game.start else next(iter(checker.phases))
    if model_start not in g:
        return
    # A 'next' to an unknown phase is reported by the checker; here it counts as a way
    # out, so that it causes no follow-on errors.
    g = g.copy()
    for p in checker.phases.values():
        if any(n.target.name not in checker.phases for n in p.nexts):
            g.add_edge(p.name, END)
    flagged = set()
    for p in checker.phases.values():
        if not p.nexts and not g.has_edge(p.name, END):
            checker.error("no-end", p.span, f"phase '{p.name}' has no 'next' and never ends the game",
                          "add: next <phase>, or an 'end game' statement")
            flagged.add(p.name)
    reachable = g.reachable(model_start)
    for p in checker.phases.values():
        if p.name not in reachable:
            checker.warning("unreachable-phase", p.span, f"phase '{p.name}' is unreachable from the start phase '{model_start}'",
                            "add a 'next' to it from another phase, or remove it")
    if END not in reachable:
        if model_start not in flagged:
            checker.error("no-end", checker.phases[model_start].span,
                          "the game can never end: no path from the start reaches 'end game'",
                          "some phase needs an 'end game' statement, reachable through 'next' clauses")
    else:
        can_end = g.reachable(END, reverse=True) - {END}
        for p in checker.phases.values():
            if p.name in reachable and p.name not in can_end and p.name not in flagged:
                checker.error("no-end", p.span, f"once in phase '{p.name}' the game can never end",
                              "every phase needs a path of 'next' clauses to a phase that ends the game")
    # A loop of phases that neither ask a player anything nor change anything spins forever.
    idle = [n for n, d in g.nodes.items() if n != END and not d["has_actions"] and not d["has_effects"]]
    loops = _loops(g, idle)
    if not loops:
        return
    import networkx as nx  # only to name a loop found (an error)
    sub = g.to_networkx().subgraph(idle)
    order = {name: i for i, name in enumerate(checker.phases)}
    for comp in sorted(loops, key=lambda c: min(order[n] for n in c)):
        cycle = [a for a, _ in nx.find_cycle(sub.subgraph(comp))]
        first = min(range(len(cycle)), key=lambda i: order[cycle[i]])
        cycle = cycle[first:] + cycle[:first]
        loop = " -> ".join(cycle + [cycle[0]])
        checker.error("no-end", checker.phases[cycle[0]].span,
                      f"the phases {loop} can loop forever without a player decision or a change of state",
                      "give one of them an action, a statement, or a way out")


def _dot_quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_mermaid(model) -> str:
    g = model.phase_graph
    ids = {n: ("END" if n == END else f"p_{n}") for n in g.nodes}
    lines = ["flowchart TD"]
    for n in g.nodes:
        if n == END:
            lines.append(f"    {ids[n]}(((end of game)))")
        else:
            shape = ("[", "]") if g.nodes[n]["has_actions"] else ("([", "])")
            lines.append(f"    {ids[n]}{shape[0]}\"{n}\"{shape[1]}")
    lines.append(f"    START(( )) --> {ids[model.start_phase]}")
    for a, b, d in g.edge_list():
        label = d.get("label", "").replace('"', "'")
        arrow = f" -->|\"{label}\"| " if label else " --> "
        lines.append(f"    {ids[a]}{arrow}{ids[b]}")
    return "\n".join(lines) + "\n"


def to_dot(model) -> str:
    g = model.phase_graph
    lines = [f"digraph {_dot_quote(model.name)} {{", "    rankdir=TB;", '    "(start)" [shape=point];']
    for n in g.nodes:
        shape = "doublecircle" if n == END else ("box" if g.nodes[n]["has_actions"] else "ellipse")
        lines.append(f"    {_dot_quote(n)} [shape={shape}];")
    lines.append(f'    "(start)" -> {_dot_quote(model.start_phase)};')
    for a, b, d in g.edge_list():
        label = d.get("label", "")
        attr = f" [label={_dot_quote(label)}]" if label else ""
        lines.append(f"    {_dot_quote(a)} -> {_dot_quote(b)}{attr};")
    lines.append("}")
    return "\n".join(lines) + "\n"
