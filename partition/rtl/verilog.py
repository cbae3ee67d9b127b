"""The IP's files: the built design printed through the templates.

Everything built so far refers to FSM states by placeholder (`State.ref`); `emit` names the
states in FSM order (idle, start, loads, initialisations, compute as reached from its
entry, post, stores, done, then any unreachable ones), resolves the placeholders in every
text, and renders the kernel top, the shells (AXI-Lite control, burst and AXI-Stream
engines), the RAM and ROM modules, the divider, and the register map as JSON and C header.
Printing is apart from building: nothing here adds logic.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from partition.regmap import STATUS, RegisterMap
from partition.rtl import shells
from partition.rtl.design import Design
from partition.rtl.fsm import State
from partition.rtl.literals import lit
from partition.rtl.phases import Phases
from partition.rtl.support import RtlUnsupported
from partition.templating import template_env


def emit(
    d: Design, ph: Phases, variant: str, estimate_cycles: int | None
) -> tuple[dict[str, bytes], list[str]]:
    """The files of the IP (relative path -> bytes) and its Verilog sources in compile order
    (top last)."""
    k, net, bus = d.k, d.net, d.bus
    order = _state_order(d, ph)
    sbits = max(1, (len(order) - 1).bit_length())
    for i, s in enumerate(order):
        s.name = f"S{i}"
    subst = {f"§{s.id}§": s.name for s in order}

    def resolve(text: str) -> str:
        while "§" in text:
            i = text.index("§")
            j = text.index("§", i + 1)
            text = text[:i] + subst[text[i : j + 1]] + text[j + 1 :]
        return text

    # ---- RAM instances
    ram_list = []
    roms = []
    for arr_name in [p.name for p in k.arrays if not p.tiled] + [a.name for a in k.locals]:
        insts, arr_roms = d.mem.instances(arr_name)
        ram_list += insts
        roms += arr_roms

    net.chain_registers()
    # register declarations and writes
    reg_blocks = []
    for reg, bits in sorted(d.regs.bits.items()):
        ws = d.regs.writes.get(reg, [])
        if not ws:
            continue
        lines = [f"    if ({resolve(c)}) {reg} <= {resolve(v)};" for c, v in ws]
        reg_blocks.append({"name": reg, "bits": bits, "body": "\n".join(lines)})
    ret_bits = d.rmap.by_name("ap_return").bits if k.ret is not None else 0
    if k.ret is not None:
        ws = d.regs.writes.get("ret_r", [])
        lines = [f"    if ({resolve(c)}) ret_r <= {resolve(v)};" for c, v in ws] or [
            f"    ret_r <= {lit(0, ret_bits)};"
        ]
        reg_blocks.append({"name": "ret_r", "bits": ret_bits, "body": "\n".join(lines)})

    fsm = []
    for s in order:
        if s.branch is not None:
            cond, t, f = s.branch
            trans = f"if ({resolve(cond)}) state <= {t.name};\n                else state <= {f.name};"
        else:
            trans = f"state <= {s.next.name};"
        fsm.append({"name": s.name, "comment": s.comment, "trans": trans})

    gmem = any(not p.stream for p in k.arrays)
    scalars = [{"name": r.name, "bits": r.bits} for r in d.rmap.registers if r.kind in ("pointer", "scalar")]
    status = None
    if k.status is not None:
        # the status variable's register holds its final value when the core signals ap_done
        status = {"port": STATUS, "reg": d.fsm.vreg(k.status)}
        if status["reg"] not in d.regs.bits:
            raise RtlUnsupported(f"kernel {k.name}: its status variable {k.status} is never assigned")
    ctx = {
        "name": k.name,
        "source": f"{k.source_file}:{k.source_line}" if k.source_file else "",
        "ctrl_aw": shells.control_address_bits(d.rmap),
        "args": scalars,
        "ret_bits": ret_bits,
        "status": status,
        "state_bits": sbits,
        "done_state": ph.done.name,
        "states": fsm,
        "decls": [resolve(x) for x in net.decls],
        "assigns": [resolve(x) for x in net.assigns],
        "regs": [resolve(x) for x in net.regs],
        "reg_blocks": reg_blocks,
        "rams": [_resolve_ram(r, resolve) for r in ram_list],
        "units": [{**u, "start": resolve(u["start"])} for u in net.units],
        "engine": _resolve_engine(ph.engine, resolve),
        "gmem": gmem,
        "streams": [{**s, "when": resolve(s["when"])} for s in ph.streams],
        "inits": ph.inits_info,
        "comments": d.fsm.comments,
        "compute_cycles": d.sched.compute_cycles,
        "estimate_cycles": estimate_cycles,
        "variant": variant,
        "clock_mhz": d.board.pl_mhz,
        "family": d.board.family,
        "data_bits": bus,
    }
    env = template_env()
    eng_aw, len_w = ph.engine["aw"], ph.engine["len_w"]
    files: dict[str, str] = {}
    files.update(
        {
            s.filename: s.text
            for s in (
                shells.render_control(d.rmap, k.name),
                *(
                    (
                        shells.render_read_engine(k.name, eng_aw, len_w, bus),
                        shells.render_write_engine(k.name, eng_aw, len_w, bus),
                    )
                    if gmem
                    else ()
                ),
                *(shells.render_axis_engine(di, k.name) for di in sorted({s["dir"] for s in ph.streams})),
            )
        }
    )
    if any(not r["rom"] for r in ram_list):
        files[f"{k.name}_ram_be.v"] = env.get_template("rtl/ram_be.v.j2").render(
            module=f"{k.name}_ram_be", width=32, nb=4, depth=1024, aw=10
        )
    for rom in roms:
        files[f"{rom['module']}.v"] = env.get_template("rtl/rom.v.j2").render(kernel=k.name, **rom)
    if net.units:
        files[f"{k.name}_div.v"] = env.get_template("rtl/divider.v.j2").render(module=f"{k.name}_div")
    files[f"{k.name}.v"] = env.get_template("rtl/kernel_top.v.j2").render(**ctx)
    sources = sorted(files)
    sources.remove(f"{k.name}.v")
    sources.append(f"{k.name}.v")
    out = {n: t.encode() for n, t in files.items()}
    out[f"{k.name}_regmap.json"] = (json.dumps(d.rmap.to_json(), indent=2, sort_keys=True) + "\n").encode()
    out[f"{k.name}_regmap.h"] = _regmap_header(d.rmap).encode()
    return out, sources


def _state_order(d: Design, ph: Phases) -> list[State]:
    """Every state in the order it is named: the phases, compute as reached from its entry,
    then states nothing reaches (e.g. after an unconditional break), which keep a name."""
    order = [ph.idle, ph.start, *ph.loads, *ph.inits]
    seen = {s.id for s in order}
    stack = [ph.compute]
    fsm_order = []
    while stack:
        s = stack.pop()
        if s.id in seen or s in (ph.post, ph.done):
            continue
        seen.add(s.id)
        fsm_order.append(s)
        succ = [s.next] if s.next else [s.branch[2], s.branch[1]]
        stack.extend(x for x in succ if x is not None)
    order += [*fsm_order, ph.post, *ph.stores, ph.done]
    extra = [s for s in d.fsm.states if s.id not in {x.id for x in order}]
    order += extra  # unreachable states (e.g. after an unconditional break) keep a name
    return order


def _resolve_ram(r: dict, resolve: Callable[[str], str]) -> dict:
    out = dict(r)
    out["ports"] = {
        p: {k: resolve(v) if isinstance(v, str) else v for k, v in d.items()} for p, d in r["ports"].items()
    }
    return out


def _resolve_engine(e: dict, resolve: Callable[[str], str]) -> dict:
    out = {"aw": e["aw"], "len_w": e["len_w"], "has_load": bool(e["loads"]), "has_store": bool(e["stores"])}
    out["loads"] = [{k: resolve(v) for k, v in x.items()} for x in e["loads"]]
    out["stores"] = [{k: resolve(v) if isinstance(v, str) else v for k, v in x.items()} for x in e["stores"]]
    return out


def _regmap_header(rmap: RegisterMap) -> str:
    env = template_env()
    return env.get_template("rtl/regmap.h.j2").render(
        kernel=rmap.kernel,
        guard=rmap.kernel.upper(),
        registers=[
            {"name": r.name.upper(), "offset": r.offset, "bits": r.bits, "kind": r.kind, "dtype": r.dtype}
            for r in rmap.registers
        ],
        size=rmap.size,
    )
