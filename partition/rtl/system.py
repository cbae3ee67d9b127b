"""Several built-in RTL kernels in one Verilog top: `cosim_top` of a build tree.

Every kernel keeps its own AXI4-Lite control slave and (when it has one) its AXI4 master,
exposed under the kernel's name; the two ends of each AXI-Stream chain are joined inside the
top by one TDATA/TVALID/TREADY net, as connect_bd_intf_net joins them in the block design, so
the producer streams straight into the consumer. A stream port whose chain partner is not in
the top is exposed as `<kernel>_<arg>_T*`.
"""

from __future__ import annotations

from collections.abc import Iterable

from partition.errors import PartitionError
from partition.rtl.kernel import RtlKernel
from partition.rtl.shells import control_address_bits
from partition.templating import template_env

#: One AXI-Stream chain: (producer kernel, its out port, consumer kernel, its in port).
Chain = tuple[str, str, str, str]


def render_cosim_top(app: str, kernels: list[RtlKernel], chains: Iterable[Chain] = ()) -> str:
    """The Verilog of `cosim_top` holding `kernels` (in the given order), chained by `chains`
    (those whose two ends are both among `kernels`)."""
    by_name = {k.top: k for k in kernels}
    wired: dict[tuple[str, str], str] = {}  # (kernel, port) -> the net joining it
    nets = []
    for p, out, c, inp in chains:
        if p not in by_name or c not in by_name:
            continue
        if by_name[p].streams.get(out) != "out" or by_name[c].streams.get(inp) != "in":
            raise PartitionError(
                f"AXI-Stream chain {p}.{out} -> {c}.{inp}: the built-in RTL of {p} has no stream output "
                f"{out} or that of {c} no stream input {inp}"
            )
        net = f"{p}_{out}"
        wired[p, out] = wired[c, inp] = net
        nets.append({"net": net, "producer": p, "out": out, "consumer": c, "in": inp})
    ctx = [
        {
            "name": k.top,
            "ctrl_aw": control_address_bits(k.regmap),
            "data_bits": k.data_bits,
            "gmem": k.gmem,
            "streams": [
                {
                    "name": s,
                    "dir": d,
                    "net": wired.get((k.top, s), f"{k.top}_{s}"),
                    "open": (k.top, s) not in wired,
                }
                for s, d in sorted(k.streams.items())
            ],
        }
        for k in kernels
    ]
    return template_env().get_template("rtl/cosim_top.v.j2").render(app=app, kernels=ctx, chains=nets)
