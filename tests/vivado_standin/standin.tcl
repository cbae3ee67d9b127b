# standin.tcl: a recording stand-in for the Vivado commands partition's TCL uses, for tclsh.
#
#   tclsh standin.tcl ?options? SCRIPT.tcl ?-tclargs ARG ...?
#
# It runs SCRIPT as `vivado -mode batch -source SCRIPT -tclargs ...` would, with every Vivado
# command replaced by a model: the project, the IP catalog (Xilinx IPs built in, user IPs
# read from the component.xml files under ip_repo_paths), block-design cells with the pins,
# interface pins, address spaces and segments each IP type has *for its current
# configuration*, nets, address assignments, validation, output products, runs that write
# the files Vivado writes where Vivado writes them, and the ipx:: packager (which reads the
# top module's ports from the Verilog and writes an IP-XACT component.xml that a later run
# reads back). It fails (exit 1, "STANDIN FAIL: <what>") as soon as a script does something
# Vivado would refuse or that makes a broken overlay:
#   a cell, pin, interface pin, port, address space or segment that was never created;
#   a CONFIG property an IP does not have (the known lists below name their sources);
#   an interface connected twice, Master to Master, to another interface type (AXI-Stream to
#   AXI4) or across clock domains; a net with two drivers or none; a clock or reset input left
#   unconnected; an enabled PS port left open; an AXI-Stream interface left open;
#   a slave segment with no address, an address outside the master's window, overlapping,
#   misaligned or unreachable through the nets; a PS clock that is not the board's
#   (-expect-ps-ref-mhz, -expect-pl-mhz); a copy of a file the flow does not produce;
#   a command no model exists for (a typo, or automation the stand-in does not model).
# A fault stays a fault when the script catches the error. The models are deliberately
# stricter than Vivado where Vivado only warns (an unassigned segment, an open enabled port),
# and they know only the CONFIG names listed below: a real but unlisted parameter fails too.
#
# options
#   -vivado-version V       what `version -short` returns (default 2024.1; < 2020.2 puts
#                           the hardware handoff under .srcs/ instead of .gen/)
#   -board-parts {P ...}    board parts `get_board_parts` can find (default: none installed)
#   -expect-ps-ref-mhz F    the board's PS reference clock; validate_bd_design checks the PS
#   -expect-pl-mhz F        the board's PL clock (FCLK0 / pl_clk0)
#   -timing met|violated    what the routed timing summary says (default met)
#   -fail-run RUN           make synth_1 or impl_1 fail
#   -expect-file PATH       a file the script must have left (repeatable; relative to cwd)
#   -report FILE            write the final model (cells, properties, nets, addresses, files)
#   -log FILE               write every Vivado command the script ran, one per line
#   -export-hls-ip DIR TOP REG_RANGE ?-no-gmem? ?NAME:in|NAME:out ...?
#                           instead of running a script, write the component.xml Vitis HLS
#                           export_design gives a top function (s_axi_control with a Reg
#                           block of REG_RANGE bytes, m_axi_gmem, ap_clk, ap_rst_n, interrupt);
#                           -no-gmem leaves m_axi_gmem out (every array streamed), and each
#                           NAME:in / NAME:out adds an AXI-Stream slave / master NAME (an
#                           `hls::stream<uint64_t>` argument with `INTERFACE mode=axis`: ports
#                           NAME_TDATA (64 bits), NAME_TVALID, NAME_TREADY, no side channels)
#
# Facts the models use (names as Vivado gives them; sources in the comments): PS7/PS8 pins,
# interfaces and segments follow PYNQ's boards/Pynq-Z2/base/base.tcl, FINN's
# custom_zynq_shell_template and write_bd_tcl output of public designs; address windows
# follow UG585 Table 4-1 (Zynq-7000) and UG1137/UG1085 (Zynq UltraScale+). AXI-Stream: Vitis
# HLS names the interface after the C++ argument with <arg>_TDATA/_TVALID/_TREADY ports
# (UG1399 "How AXI4-Stream is Implemented"); Vivado's validation only warns about an open one
# (BD 41-759: the unconnected inputs, a slave's TVALID or a master's TREADY, are tied to 0, so
# the kernel waits forever), which the stand-in refuses.

namespace eval sa {
    variable opts [dict create vivado-version 2024.1 board-parts {} expect-ps-ref-mhz "" \
        expect-pl-mhz "" timing met fail-run "" expect-file {} report "" log ""]
    variable failures {}
    variable log {}
    # project
    variable project {}
    variable catalog [dict create]
    variable produced {}
    variable copies {}
    # block design
    variable bd {}
    variable cells [dict create]
    variable pins [dict create]
    variable ipins [dict create]
    variable ports [dict create]
    variable iports [dict create]
    variable spaces [dict create]
    variable segs [dict create]
    variable nets [dict create]
    variable net_of [dict create]
    variable inet_of [dict create]
    variable assigned [dict create]
    variable excluded [dict create]
    variable net_counter 0
    # ipx
    variable cores [dict create]
    variable core_id 0
    variable current_core ""
}

# ============================================================================ basics

proc sa::fail {message} {
    variable failures
    lappend failures $message
    return -code error -errorcode [list STANDIN_FAIL] $message
}

proc sa::record {args} {
    variable log
    lappend log $args
}

proc sa::opt {name} {
    variable opts
    return [dict get $opts $name]
}

# Strip the options a command takes (flags with and without values) off its arguments.
# spec: dict option -> 1 (takes a value) or 0 (flag). Returns {options positional}.
proc sa::parse_args {cmd spec arglist} {
    set options [dict create]
    set positional {}
    for {set i 0} {$i < [llength $arglist]} {incr i} {
        set a [lindex $arglist $i]
        if {[string index $a 0] eq "-" && ![string is double -strict $a]} {
            if {![dict exists $spec $a]} {
                sa::fail "$cmd: option $a is not modelled (known: [lsort [dict keys $spec]])"
            }
            if {[dict get $spec $a]} {
                incr i
                if {$i >= [llength $arglist]} {
                    sa::fail "$cmd: option $a needs a value"
                }
                dict set options $a [lindex $arglist $i]
            } else {
                dict set options $a 1
            }
        } else {
            lappend positional $a
        }
    }
    return [list $options $positional]
}

# Sizes as Vivado writes them: 64K, 512M, 2G, 32G, 16E, hex or decimal bytes.
proc sa::size {text} {
    set t [string trim $text]
    if {[regexp {^(\d+)([KMGTPE])$} $t -> n unit]} {
        set power [dict get {K 10 M 20 G 30 T 40 P 50 E 60} $unit]
        return [expr {$n * (1 << $power)}]
    }
    if {[regexp {^0[xX][0-9A-Fa-f]+$} $t] || [regexp {^\d+$} $t]} {
        return [expr {$t + 0}]
    }
    sa::fail "'$text' is not a size (64K, 2G, 0x10000, 65536)"
}

proc sa::is_pow2 {n} {
    return [expr {$n > 0 && ($n & ($n - 1)) == 0}]
}

proc sa::hex {n} {
    return [format 0x%08llX $n]
}

proc sa::path {name} {
    set name [string trim $name]
    if {[string index $name 0] ne "/"} {
        set name /$name
    }
    return $name
}

# ============================================================================ XML (IP-XACT subset)

# A node is a dict: tag (without namespace prefix), attrs, children, text.
proc sa::xml_parse {text} {
    regsub -all {<\?[^>]*\?>} $text "" text
    regsub -all {<!--.*?-->} $text "" text
    set stack [list [dict create tag #root attrs {} children {} text ""]]
    foreach token [regexp -all -inline {<[^>]+>|[^<]+} $text] {
        if {[string index $token 0] ne "<"} {
            set top [lindex $stack end]
            dict append top text [string trim $token]
            lset stack end $top
            continue
        }
        if {[string index $token 1] eq "/"} {
            set node [lindex $stack end]
            set stack [lrange $stack 0 end-1]
            set parent [lindex $stack end]
            dict lappend parent children $node
            lset stack end $parent
            continue
        }
        set self_closing [expr {[string index $token end-1] eq "/"}]
        set body [string trim [string range $token 1 [expr {$self_closing ? "end-2" : "end-1"}]]]
        regexp {^(\S+)(.*)$} $body -> tag rest
        regsub {^[A-Za-z_]+:} $tag "" tag
        set attrs [dict create]
        foreach {_ key value} [regexp -all -inline {([A-Za-z_:.\-]+)\s*=\s*"([^"]*)"} $rest] {
            regsub {^[A-Za-z_]+:} $key "" key
            dict set attrs $key $value
        }
        set node [dict create tag $tag attrs $attrs children {} text ""]
        if {$self_closing} {
            set parent [lindex $stack end]
            dict lappend parent children $node
            lset stack end $parent
        } else {
            lappend stack $node
        }
    }
    return [lindex [dict get [lindex $stack 0] children] 0]
}

proc sa::xml_kids {node tag} {
    set out {}
    if {$node eq ""} {
        return $out
    }
    foreach c [dict get $node children] {
        if {[dict get $c tag] eq $tag} {
            lappend out $c
        }
    }
    return $out
}

proc sa::xml_kid {node tag} {
    return [lindex [sa::xml_kids $node $tag] 0]
}

proc sa::xml_text {node tag} {
    set k [sa::xml_kid $node $tag]
    if {$k eq ""} {
        return ""
    }
    return [dict get $k text]
}

proc sa::xml_escape {s} {
    return [string map {& &amp; < &lt; > &gt; \" &quot;} $s]
}

# ============================================================================ Verilog ports

# Ports of module `top` among `files`: dict name -> {dir in|out|inout width N}.
proc sa::verilog_ports {files top} {
    foreach f $files {
        set fh [open $f r]
        set text [read $fh]
        close $fh
        regsub -all {/\*.*?\*/} $text "" text
        regsub -all {//[^\n]*} $text "" text
        if {![regexp -indices "module\\s+$top\\s*(#\\s*\\(.*?\\)\\s*)?\\(" $text match]} {
            continue
        }
        set start [lindex $match 1]
        set end [string first ");" $text $start]
        set header [string range $text $start $end]
        set body_end [string first "endmodule" $text $end]
        set scan $header
        if {![regexp {\m(input|output|inout)\M} $header]} {
            set scan [string range $text $end $body_end]
        }
        set ports [dict create]
        foreach {_ dir hi lo name} [regexp -all -inline \
                {\m(input|output|inout)\M\s*(?:wire|reg|logic)?\s*(?:signed)?\s*(?:\[\s*(\d+)\s*:\s*(\d+)\s*\])?\s*([A-Za-z_][A-Za-z0-9_$]*)} $scan] {
            set width 1
            if {$hi ne ""} {
                set width [expr {abs($hi - $lo) + 1}]
            }
            dict set ports $name [dict create dir [string map {input in output out} $dir] width $width]
        }
        if {[dict size $ports] == 0} {
            sa::fail "module $top in $f declares no ports the stand-in can read"
        }
        return $ports
    }
    sa::fail "top module $top is not defined in the project's sources ([join $files {, }])"
}

# ============================================================================ IP models

# Property validators: bool, mhz (positive number), int LO HI, enum {A B ...}, any.
proc sa::check_value {where prop kind value} {
    switch -- [lindex $kind 0] {
        bool {
            if {$value ni {0 1 true false}} {
                sa::fail "$where: CONFIG.$prop must be 0 or 1, got '$value'"
            }
        }
        mhz {
            if {![string is double -strict $value] || $value <= 0} {
                sa::fail "$where: CONFIG.$prop must be a frequency in MHz, got '$value'"
            }
        }
        int {
            lassign $kind _ lo hi
            if {![string is integer -strict $value] || $value < $lo || $value > $hi} {
                sa::fail "$where: CONFIG.$prop must be an integer in $lo..$hi, got '$value'"
            }
        }
        enum {
            if {$value ni [lindex $kind 1]} {
                sa::fail "$where: CONFIG.$prop must be one of [join [lindex $kind 1] {, }], got '$value'"
            }
        }
        any {}
    }
}

proc sa::truthy {v} {
    return [expr {$v in {1 true}}]
}

# Known CONFIG parameters per IP with their defaults. Only names found in public sources:
#  processing_system7  PYNQ boards/Pynq-Z2/base/base.tcl, FINN custom_zynq_shell_template,
#                      reference/pynq_flow.md §3.2, public write_bd_tcl output
#  zynq_ultra_ps_e     FINN template, public designs (PSU__USE__*, PSU__MAXIGP0__DATA_WIDTH, ...)
#  axi_interconnect    PG059 "AXI Interconnect Core Parameters" (NUM_SI default 2, NUM_MI 1)
#  smartconnect        PG247 "Design Parameters" (NUM_SI 2, NUM_MI 1, NUM_CLKS 1, HAS_ARESETN 1)
#  proc_sys_reset      PG164; names as set in public designs
#  axi_intc            PG099; names as set in public designs
#  xlconcat            UG994 "Concat" (NUM_PORTS), public designs (IN0_WIDTH, dout_width)
proc sa::known_params {ip} {
    set p [dict create]
    switch -- $ip {
        processing_system7 {
            dict set p PCW_CRYSTAL_PERIPHERAL_FREQMHZ {mhz 33.333333}
            dict set p PCW_APU_PERIPHERAL_FREQMHZ {mhz 666.666666}
            foreach i {0 1 2 3} default_en {1 0 0 0} {
                dict set p PCW_FPGA${i}_PERIPHERAL_FREQMHZ {mhz 50}
                dict set p PCW_EN_CLK${i}_PORT [list bool $default_en]
                dict set p PCW_EN_RST${i}_PORT [list bool $default_en]
                dict set p PCW_FPGA_FCLK${i}_ENABLE [list bool $default_en]
                dict set p PCW_USE_S_AXI_HP${i} {bool 0}
                dict set p PCW_S_AXI_HP${i}_DATA_WIDTH {{enum {32 64}} 64}
            }
            dict set p PCW_USE_M_AXI_GP0 {bool 1}
            dict set p PCW_USE_M_AXI_GP1 {bool 0}
            dict set p PCW_USE_FABRIC_INTERRUPT {bool 0}
            dict set p PCW_IRQ_F2P_INTR {bool 0}
            dict set p PCW_IRQ_F2P_MODE {{enum {DIRECT REVERSE}} DIRECT}
            dict set p PCW_USE_HIGH_OCM {bool 0}
            dict set p PCW_UIPARAM_DDR_PARTNO {any {MT41J128M16 HA-15E}}
            dict set p PCW_UIPARAM_DDR_BUS_WIDTH {any {32 Bit}}
            dict set p PCW_IMPORT_BOARD_PRESET {any None}
        }
        zynq_ultra_ps_e {
            dict set p PSU__PSS_REF_CLK__FREQMHZ {mhz 33.333}
            foreach i {0 1 2 3} default_en {1 0 0 0} {
                dict set p PSU__FPGA_PL${i}_ENABLE [list bool $default_en]
                dict set p PSU__CRL_APB__PL${i}_REF_CTRL__FREQMHZ {mhz 100}
                dict set p PSU__CRL_APB__PL${i}_REF_CTRL__SRCSEL {{enum {IOPLL RPLL DPLL}} IOPLL}
            }
            dict set p PSU__USE__FABRIC__RST {bool 1}
            dict set p PSU__NUM_FABRIC_RESETS {{int 1 4} 1}
            foreach i {0 1 2} {
                # a fresh zynq_ultra_ps_e has HPM0_FPD, HPM1_FPD and HPM0_LPD enabled
                dict set p PSU__USE__M_AXI_GP$i {bool 1}
                dict set p PSU__MAXIGP${i}__DATA_WIDTH {{enum {32 64 128}} 128}
            }
            foreach i {0 1 2 3 4 5 6} {
                dict set p PSU__USE__S_AXI_GP$i {bool 0}
                dict set p PSU__SAXIGP${i}__DATA_WIDTH {{enum {32 64 128}} 128}
            }
            dict set p PSU__USE__IRQ0 {bool 0}
            dict set p PSU__USE__IRQ1 {bool 0}
        }
        axi_interconnect {
            dict set p NUM_SI {{int 1 16} 2}
            dict set p NUM_MI {{int 1 64} 1}
            dict set p STRATEGY {{enum {0 1 2}} 0}
            dict set p ENABLE_ADVANCED_OPTIONS {bool 0}
            for {set i 0} {$i < 64} {incr i} {
                foreach side {S M} {
                    set n [format %s%02d $side $i]
                    dict set p ${n}_HAS_REGSLICE {{int 0 4} 0}
                    dict set p ${n}_HAS_DATA_FIFO {{int 0 2} 0}
                }
            }
        }
        smartconnect {
            dict set p NUM_SI {{int 1 16} 2}
            dict set p NUM_MI {{int 1 16} 1}
            dict set p NUM_CLKS {{int 1 33} 1}
            dict set p HAS_ARESETN {bool 1}
            dict set p STRATEGY {{enum {AUTOMATIC LOW_AREA PERFORMANCE}} AUTOMATIC}
            dict set p ADVANCED_PROPERTIES {any {}}
        }
        proc_sys_reset {
            dict set p C_EXT_RST_WIDTH {{int 1 16} 4}
            dict set p C_AUX_RST_WIDTH {{int 1 16} 4}
            dict set p C_EXT_RESET_HIGH {bool 0}
            dict set p C_AUX_RESET_HIGH {bool 0}
            dict set p RESET_BOARD_INTERFACE {any Custom}
            dict set p USE_BOARD_FLOW {bool 0}
        }
        axi_intc {
            dict set p C_IRQ_CONNECTION {bool 0}
            dict set p C_IRQ_IS_LEVEL {bool 1}
            dict set p C_KIND_OF_INTR {any 0xFFFFFFFF}
            dict set p C_NUM_INTR_INPUTS {{int 1 32} 1}
            dict set p C_NUM_SW_INTR {{int 0 31} 0}
            dict set p C_HAS_FAST {bool 0}
            dict set p C_IVAR_RESET_VALUE {any 0x0000000000000010}
            dict set p C_S_AXI_ACLK_FREQ_MHZ {mhz 100.0}
            dict set p C_PROCESSOR_CLK_FREQ_MHZ {mhz 100.0}
        }
        xlconcat {
            dict set p NUM_PORTS {{int 1 128} 2}
            for {set i 0} {$i < 128} {incr i} {
                dict set p IN${i}_WIDTH {{int 1 4096} 1}
            }
            dict set p dout_width {{int 1 8192} 2}
        }
    }
    return $p
}

# Built-in Xilinx IPs: name -> {version families}; families as the part prefix decides them.
proc sa::xilinx_ips {} {
    return {
        processing_system7 {5.5 zynq}
        zynq_ultra_ps_e {3.5 zynquplus}
        axi_interconnect {2.1 any}
        smartconnect {1.0 any}
        proc_sys_reset {5.0 any}
        axi_intc {4.1 any}
        xlconcat {2.1 any}
    }
}

proc sa::part_family {part} {
    if {[string match xc7z* $part]} {
        return zynq
    }
    if {[string match xczu* $part] || [string match xck26* $part] || [string match xck24* $part]} {
        return zynquplus
    }
    return other
}

proc sa::cfg {cell prop} {
    variable cells
    set c [dict get $cells $cell]
    set params [dict get $c params]
    if {[dict exists $c props $prop]} {
        return [dict get $c props $prop]
    }
    return [lindex [dict get $params $prop] 1]
}

# The interface of a cell for its current configuration.
# Returns dict: pins {name {dir type required}} ipins {name {mode bus required aclk segprefix segs space}}
#               spaces {name {range windows {ipin {base size}}}} routes (interconnect: 1)
proc sa::interface_of {cell} {
    variable cells
    set c [dict get $cells $cell]
    set ip [dict get $c ip]
    set pins [dict create]
    set ipins [dict create]
    set spaces [dict create]
    set route 0
    switch -- $ip {
        processing_system7 {
            dict set ipins DDR {mode Master bus ddrx required 1 aclk {} segprefix {} segs {} space {}}
            dict set ipins FIXED_IO {mode Master bus fixedio required 1 aclk {} segprefix {} segs {} space {}}
            set windows [dict create]
            # M_AXI_GP0 0x4000_0000-0x7FFF_FFFF, M_AXI_GP1 0x8000_0000-0xBFFF_FFFF (UG585 Table 4-1)
            foreach i {0 1} base {0x40000000 0x80000000} {
                if {[sa::truthy [sa::cfg $cell PCW_USE_M_AXI_GP$i]]} {
                    dict set ipins M_AXI_GP$i [dict create mode Master bus aximm required 1 \
                        aclk M_AXI_GP${i}_ACLK segprefix {} segs {} space Data]
                    dict set pins M_AXI_GP${i}_ACLK {dir I type clk required 1}
                    dict set windows M_AXI_GP$i [list $base 0x40000000]
                }
            }
            if {[dict size $windows] > 0} {
                dict set spaces Data [dict create range 0x100000000 windows $windows]
            }
            foreach i {0 1 2 3} {
                if {[sa::truthy [sa::cfg $cell PCW_USE_S_AXI_HP$i]]} {
                    # HP ports see DDR at 0x0000_0000-0x3FFF_FFFF (UG585 Table 4-1)
                    set s [dict create HP${i}_DDR_LOWOCM {base 0 max 0x40000000 min 0x1000 fixed 1 ddr 1}]
                    if {[sa::truthy [sa::cfg $cell PCW_USE_HIGH_OCM]]} {
                        dict set s HP${i}_HIGH_OCM {base 0xFFFC0000 max 0x40000 min 0x1000 fixed 1 ddr 0}
                    }
                    dict set ipins S_AXI_HP$i [dict create mode Slave bus aximm required 1 \
                        aclk S_AXI_HP${i}_ACLK segprefix S_AXI_HP$i segs $s space {}]
                    dict set pins S_AXI_HP${i}_ACLK {dir I type clk required 1}
                }
            }
            foreach i {0 1 2 3} {
                if {[sa::truthy [sa::cfg $cell PCW_EN_CLK${i}_PORT]]} {
                    dict set pins FCLK_CLK$i {dir O type clk required 0}
                }
                if {[sa::truthy [sa::cfg $cell PCW_EN_RST${i}_PORT]]} {
                    dict set pins FCLK_RESET${i}_N {dir O type rst required 0 polarity ACTIVE_LOW}
                }
            }
            if {[sa::truthy [sa::cfg $cell PCW_USE_FABRIC_INTERRUPT]] && [sa::truthy [sa::cfg $cell PCW_IRQ_F2P_INTR]]} {
                dict set pins IRQ_F2P {dir I type intr required 0}
            }
        }
        zynq_ultra_ps_e {
            set windows [dict create]
            # HPM0_FPD 0xA000_0000 and HPM1_FPD 0xB000_0000 (256 MB each), HPM0_LPD 0x8000_0000
            # (512 MB) in the 32-bit PL windows (UG1085 system address map; PYNQ's ZU+
            # overlays put PL peripherals at 0xA000_0000, reference/pynq_flow.md §4.3)
            foreach i {0 1 2} intf {M_AXI_HPM0_FPD M_AXI_HPM1_FPD M_AXI_HPM0_LPD} \
                    clk {maxihpm0_fpd_aclk maxihpm1_fpd_aclk maxihpm0_lpd_aclk} \
                    base {0xA0000000 0xB0000000 0x80000000} size {0x10000000 0x10000000 0x20000000} {
                if {[sa::truthy [sa::cfg $cell PSU__USE__M_AXI_GP$i]]} {
                    dict set ipins $intf [dict create mode Master bus aximm required 1 aclk $clk \
                        segprefix {} segs {} space Data]
                    dict set pins $clk {dir I type clk required 1}
                    dict set windows $intf [list $base $size]
                }
            }
            if {[dict size $windows] > 0} {
                dict set spaces Data [dict create range 0x10000000000 windows $windows]
            }
            # S_AXI_GP0/1 = HPC0/1_FPD, GP2..5 = HP0..3_FPD, GP6 = LPD; segments per UG1137
            # (DDR low 0x0 2 GB, DDR high 0x8_0000_0000, QSPI 0xC000_0000 512 MB) and the
            # windows Vivado assigns (LPS_OCM 0xFF00_0000 16 MB, PCIE_LOW 0xE000_0000 256 MB)
            foreach i {0 1 2 3 4 5 6} intf {S_AXI_HPC0_FPD S_AXI_HPC1_FPD S_AXI_HP0_FPD S_AXI_HP1_FPD \
                    S_AXI_HP2_FPD S_AXI_HP3_FPD S_AXI_LPD} \
                    clk {saxihpc0_fpd_aclk saxihpc1_fpd_aclk saxihp0_fpd_aclk saxihp1_fpd_aclk \
                    saxihp2_fpd_aclk saxihp3_fpd_aclk saxi_lpd_aclk} \
                    pfx {HPC0 HPC1 HP0 HP1 HP2 HP3 LPD} {
                if {![sa::truthy [sa::cfg $cell PSU__USE__S_AXI_GP$i]]} {
                    continue
                }
                set s [dict create \
                    ${pfx}_DDR_LOW {base 0 max 0x80000000 min 0x1000 fixed 1 ddr 1} \
                    ${pfx}_DDR_HIGH {base 0x800000000 max 0x800000000 min 0x1000 fixed 1 ddr 1} \
                    ${pfx}_LPS_OCM {base 0xFF000000 max 0x1000000 min 0x1000 fixed 1 ddr 0} \
                    ${pfx}_QSPI {base 0xC0000000 max 0x20000000 min 0x1000 fixed 1 ddr 0} \
                    ${pfx}_PCIE_LOW {base 0xE0000000 max 0x10000000 min 0x1000 fixed 1 ddr 0}]
                dict set ipins $intf [dict create mode Slave bus aximm required 1 aclk $clk \
                    segprefix SAXIGP$i segs $s space {}]
                dict set pins $clk {dir I type clk required 1}
            }
            foreach i {0 1 2 3} {
                if {[sa::truthy [sa::cfg $cell PSU__FPGA_PL${i}_ENABLE]]} {
                    dict set pins pl_clk$i {dir O type clk required 0}
                }
            }
            if {[sa::truthy [sa::cfg $cell PSU__USE__FABRIC__RST]]} {
                for {set i 0} {$i < [sa::cfg $cell PSU__NUM_FABRIC_RESETS]} {incr i} {
                    dict set pins pl_resetn$i {dir O type rst required 0 polarity ACTIVE_LOW}
                }
            }
            foreach i {0 1} {
                if {[sa::truthy [sa::cfg $cell PSU__USE__IRQ$i]]} {
                    dict set pins pl_ps_irq$i {dir I type intr required 0}
                }
            }
        }
        axi_interconnect {
            set route 1
            dict set pins ACLK {dir I type clk required 1}
            dict set pins ARESETN {dir I type rst required 1 polarity ACTIVE_LOW}
            foreach side {S M} mode {Slave Master} count [list [sa::cfg $cell NUM_SI] [sa::cfg $cell NUM_MI]] {
                for {set i 0} {$i < $count} {incr i} {
                    set n [format %s%02d $side $i]
                    dict set pins ${n}_ACLK {dir I type clk required 1}
                    dict set pins ${n}_ARESETN {dir I type rst required 1 polarity ACTIVE_LOW}
                    dict set ipins ${n}_AXI [dict create mode $mode bus aximm required 1 aclk ${n}_ACLK \
                        segprefix {} segs {} space {}]
                }
            }
        }
        smartconnect {
            set route 1
            set nclk [sa::cfg $cell NUM_CLKS]
            dict set pins aclk {dir I type clk required 1}
            for {set i 1} {$i < $nclk} {incr i} {
                dict set pins aclk$i {dir I type clk required 1}
            }
            if {[sa::truthy [sa::cfg $cell HAS_ARESETN]]} {
                dict set pins aresetn {dir I type rst required 1 polarity ACTIVE_LOW}
            }
            foreach side {S M} mode {Slave Master} count [list [sa::cfg $cell NUM_SI] [sa::cfg $cell NUM_MI]] {
                for {set i 0} {$i < $count} {incr i} {
                    set aclk aclk
                    if {$nclk > 1} {
                        set aclk ""
                    }
                    dict set ipins [format %s%02d_AXI $side $i] [dict create mode $mode bus aximm required 1 \
                        aclk $aclk segprefix {} segs {} space {}]
                }
            }
        }
        proc_sys_reset {
            dict set pins slowest_sync_clk {dir I type clk required 1}
            dict set pins ext_reset_in {dir I type rst required 1}
            dict set pins aux_reset_in {dir I type rst required 0}
            dict set pins mb_debug_sys_rst {dir I type rst required 0}
            dict set pins dcm_locked {dir I type data required 0}
            dict set pins mb_reset {dir O type rst required 0 polarity ACTIVE_HIGH}
            dict set pins bus_struct_reset {dir O type rst required 0 polarity ACTIVE_HIGH}
            dict set pins peripheral_reset {dir O type rst required 0 polarity ACTIVE_HIGH}
            dict set pins interconnect_aresetn {dir O type rst required 0 polarity ACTIVE_LOW}
            dict set pins peripheral_aresetn {dir O type rst required 0 polarity ACTIVE_LOW}
        }
        axi_intc {
            dict set pins s_axi_aclk {dir I type clk required 1}
            dict set pins s_axi_aresetn {dir I type rst required 1 polarity ACTIVE_LOW}
            dict set pins intr {dir I type intr required 1}
            dict set pins irq {dir O type intr required 0}
            # register space: the address editor gives it 4K or more
            dict set ipins s_axi [dict create mode Slave bus aximm required 1 aclk s_axi_aclk \
                segprefix S_AXI segs {Reg {base 0 max 0 min 0x1000 fixed 0 ddr 0}} space {}]
        }
        xlconcat {
            for {set i 0} {$i < [sa::cfg $cell NUM_PORTS]} {incr i} {
                dict set pins In$i {dir I type data required 1}
            }
            dict set pins dout {dir O type data required 0}
        }
        default {
            # a user IP from the catalog (component.xml)
            set def [dict get $c def]
            dict for {name bif} [dict get $def busifs] {
                set bus [dict get $bif bus]
                set maps [dict get $bif portmaps]
                switch -- $bus {
                    clock {
                        dict set pins [dict get $maps CLK] {dir I type clk required 1}
                    }
                    reset {
                        set pol ACTIVE_LOW
                        if {[dict exists $bif params POLARITY]} {
                            set pol [dict get $bif params POLARITY]
                        }
                        dict set pins [dict get $maps RST] [dict create dir I type rst required 1 polarity $pol]
                    }
                    interrupt {
                        dict set pins [dict get $maps INTERRUPT] {dir O type intr required 1}
                    }
                    axis {
                        dict set ipins $name [dict create mode [string totitle [dict get $bif mode]] bus axis \
                            required 1 aclk [sa::def_aclk $def $name] segprefix {} segs {} space {}]
                    }
                    aximm {
                        set aclk [sa::def_aclk $def $name]
                        if {[dict get $bif mode] eq "slave"} {
                            set mm [dict get $bif ref]
                            set s [dict create]
                            dict for {block range} [dict get $def memmaps $mm] {
                                dict set s $block [dict create base 0 max 0 min [expr {max($range, 0x1000)}] fixed 0 ddr 0]
                            }
                            dict set ipins $name [dict create mode Slave bus aximm required 1 aclk $aclk \
                                segprefix $mm segs $s space {}]
                        } else {
                            set as [dict get $bif ref]
                            dict set ipins $name [dict create mode Master bus aximm required 1 aclk $aclk \
                                segprefix {} segs {} space $as]
                            dict set spaces $as [dict create range [dict get $def spaces $as range] \
                                windows [dict create $name [list 0 [dict get $def spaces $as range]]]]
                        }
                    }
                }
            }
        }
    }
    return [dict create pins $pins ipins $ipins spaces $spaces route $route]
}

# The clock pin a user IP's interface `name` is associated with (ASSOCIATED_BUSIF), or "".
proc sa::def_aclk {def name} {
    dict for {cname cbif} [dict get $def busifs] {
        if {[dict get $cbif bus] eq "clock" && [dict exists $cbif params ASSOCIATED_BUSIF]
            && $name in [split [dict get $cbif params ASSOCIATED_BUSIF] :]} {
            return [dict get $cbif portmaps CLK]
        }
    }
    return ""
}

# Rebuild the registries of one cell after it was created or reconfigured.
proc sa::refresh {cell} {
    variable cells
    variable pins
    variable ipins
    variable spaces
    variable segs
    variable net_of
    variable inet_of
    set itf [sa::interface_of $cell]
    set newpins [dict create]
    dict for {n p} [dict get $itf pins] {
        dict set newpins /$cell/$n [dict merge {polarity {}} $p [dict create cell $cell name $n]]
    }
    set newipins [dict create]
    dict for {n p} [dict get $itf ipins] {
        dict set newipins /$cell/$n [dict merge $p [dict create cell $cell name $n]]
    }
    # a reconfiguration may not remove what is already connected
    foreach old [dict keys $pins /$cell/*] {
        if {![dict exists $newpins $old] && [dict exists $net_of $old]} {
            sa::fail "reconfiguring $cell removes pin $old, which is connected"
        }
    }
    foreach old [dict keys $ipins /$cell/*] {
        if {![dict exists $newipins $old] && [dict exists $inet_of $old]} {
            sa::fail "reconfiguring $cell removes interface pin $old, which is connected"
        }
    }
    foreach old [dict keys $pins /$cell/*] {
        dict unset pins $old
    }
    foreach old [dict keys $ipins /$cell/*] {
        dict unset ipins $old
    }
    foreach old [dict keys $spaces /$cell/*] {
        dict unset spaces $old
    }
    foreach old [dict keys $segs /$cell/*] {
        dict unset segs $old
    }
    set pins [dict merge $pins $newpins]
    set ipins [dict merge $ipins $newipins]
    dict for {n s} [dict get $itf spaces] {
        dict set spaces /$cell/$n [dict merge $s [dict create cell $cell]]
    }
    dict for {n p} [dict get $itf ipins] {
        dict for {sn s} [dict get $p segs] {
            dict set segs /$cell/[dict get $p segprefix]/$sn [dict merge $s [dict create cell $cell ipin /$cell/$n]]
        }
    }
    dict set cells $cell route [dict get $itf route]
}

# ============================================================================ project and catalog

proc version {args} {
    sa::record version {*}$args
    if {$args ne "-short"} {
        sa::fail "version: only `version -short` is modelled"
    }
    return [sa::opt vivado-version]
}

proc sa::version_at_least {v} {
    return [expr {[package vcompare [sa::opt vivado-version] $v] >= 0}]
}

proc sa::need_project {cmd} {
    variable project
    if {$project eq ""} {
        sa::fail "$cmd: no project is open (create_project first)"
    }
}

proc create_project {args} {
    sa::record create_project {*}$args
    lassign [sa::parse_args create_project {-part 1 -force 0 -in_memory 0 -ip 0} $args] o pos
    if {[llength $pos] != 2} {
        sa::fail "create_project: give a project name and a folder (got: $pos)"
    }
    lassign $pos name dir
    if {![dict exists $o -part]} {
        sa::fail "create_project $name: no -part"
    }
    set dir [file normalize $dir]
    if {[file exists [file join $dir $name.xpr]]} {
        if {![dict exists $o -force]} {
            sa::fail "create_project: $dir/$name.xpr exists; use -force"
        }
        # -force replaces the project: its files and output folders go
        foreach old [glob -nocomplain -directory $dir $name.*] {
            file delete -force $old
        }
    }
    file mkdir $dir
    set fh [open [file join $dir $name.xpr] w]
    puts $fh "<!-- stand-in project $name on [dict get $o -part] -->"
    close $fh
    set sa::project [dict create name $name dir $dir part [dict get $o -part] board_part {} \
        ip_repo_paths {} files {} top {} runs {} wrapper {} generated 0 bd_file {}]
    array unset sa::runs
    return $name
}

proc current_project {args} {
    sa::record current_project {*}$args
    sa::need_project current_project
    return [dict get $sa::project name]
}

proc close_project {args} {
    sa::record close_project {*}$args
    sa::need_project close_project
    set sa::project {}
    set sa::bd {}
    return ""
}

proc current_fileset {args} {
    sa::record current_fileset {*}$args
    sa::need_project current_fileset
    return sources_1
}

# board parts "installed" for this run (-board-parts)
proc get_board_parts {args} {
    sa::record get_board_parts {*}$args
    lassign [sa::parse_args get_board_parts {-quiet 0 -latest_file_version 0 -filter 1} $args] o pos
    set found {}
    foreach pattern $pos {
        foreach bp [sa::opt board-parts] {
            if {[string match $pattern $bp]} {
                lappend found $bp
            }
        }
    }
    set found [lsort -unique $found]
    if {[dict exists $o -latest_file_version] && [llength $found] > 1} {
        set best {}
        foreach bp $found {
            set base [join [lrange [split $bp :] 0 2] :]
            set v [lindex [split $bp :] 3]
            if {![dict exists $best $base] || [package vcompare $v [lindex [split [dict get $best $base] :] 3]] > 0} {
                dict set best $base $bp
            }
        }
        set found [dict values $best]
    }
    return $found
}

proc sa::ipdef_of_component {xml_path} {
    set fh [open $xml_path r]
    set root [sa::xml_parse [read $fh]]
    close $fh
    if {[dict get $root tag] ne "component"} {
        sa::fail "$xml_path is not an IP-XACT component"
    }
    set vlnv [join [list [sa::xml_text $root vendor] [sa::xml_text $root library] \
        [sa::xml_text $root name] [sa::xml_text $root version]] :]
    set busifs [dict create]
    foreach b [sa::xml_kids [sa::xml_kid $root busInterfaces] busInterface] {
        set name [sa::xml_text $b name]
        set bus [dict get [sa::xml_kid $b busType] attrs name]
        set mode ""
        set ref ""
        if {[sa::xml_kid $b slave] ne ""} {
            set mode slave
            set r [sa::xml_kid [sa::xml_kid $b slave] memoryMapRef]
            if {$r ne ""} {
                set ref [dict get $r attrs memoryMapRef]
            }
        } elseif {[sa::xml_kid $b master] ne ""} {
            set mode master
            set r [sa::xml_kid [sa::xml_kid $b master] addressSpaceRef]
            if {$r ne ""} {
                set ref [dict get $r attrs addressSpaceRef]
            }
        }
        set maps [dict create]
        foreach m [sa::xml_kids [sa::xml_kid $b portMaps] portMap] {
            dict set maps [sa::xml_text [sa::xml_kid $m logicalPort] name] \
                [sa::xml_text [sa::xml_kid $m physicalPort] name]
        }
        set params [dict create]
        foreach p [sa::xml_kids [sa::xml_kid $b parameters] parameter] {
            dict set params [sa::xml_text $p name] [sa::xml_text $p value]
        }
        if {$bus ni {aximm axis clock reset interrupt}} {
            sa::fail "$xml_path: bus interface $name of type $bus is not modelled"
        }
        if {$bus eq "aximm" && $ref eq ""} {
            sa::fail "$xml_path: AXI interface $name has no [expr {$mode eq "slave" ? "memory map" : "address space"}]"
        }
        dict set busifs $name [dict create bus $bus mode $mode ref $ref portmaps $maps params $params]
    }
    set memmaps [dict create]
    foreach mm [sa::xml_kids [sa::xml_kid $root memoryMaps] memoryMap] {
        set blocks [dict create]
        foreach blk [sa::xml_kids $mm addressBlock] {
            dict set blocks [sa::xml_text $blk name] [sa::size [sa::xml_text $blk range]]
        }
        dict set memmaps [sa::xml_text $mm name] $blocks
    }
    set spaces [dict create]
    foreach as [sa::xml_kids [sa::xml_kid $root addressSpaces] addressSpace] {
        dict set spaces [sa::xml_text $as name] [dict create range [sa::size [sa::xml_text $as range]] \
            width [sa::xml_text $as width]]
    }
    return [dict create vlnv $vlnv busifs $busifs memmaps $memmaps spaces $spaces xml $xml_path]
}

proc sa::find_components {dir} {
    set found {}
    if {[file exists [file join $dir component.xml]]} {
        lappend found [file join $dir component.xml]
    }
    foreach sub [lsort [glob -nocomplain -types d -directory $dir *]] {
        lappend found {*}[sa::find_components $sub]
    }
    return $found
}

proc update_ip_catalog {args} {
    sa::record update_ip_catalog {*}$args
    sa::need_project update_ip_catalog
    lassign [sa::parse_args update_ip_catalog {-rebuild 0 -quiet 0} $args] o pos
    set sa::catalog [dict create]
    foreach repo [dict get $sa::project ip_repo_paths] {
        if {![file isdirectory $repo]} {
            sa::fail "update_ip_catalog: IP repository $repo does not exist"
        }
        foreach xml [sa::find_components $repo] {
            set def [sa::ipdef_of_component $xml]
            dict set sa::catalog [dict get $def vlnv] $def
        }
    }
    return ""
}

proc get_ipdefs {args} {
    sa::record get_ipdefs {*}$args
    lassign [sa::parse_args get_ipdefs {-quiet 0 -all 0 -filter 1} $args] o pos
    set found {}
    foreach pattern $pos {
        foreach vlnv [dict keys $sa::catalog] {
            if {[string match $pattern $vlnv]} {
                lappend found $vlnv
            }
        }
    }
    return $found
}

# ============================================================================ properties

proc sa::kind_of {obj} {
    if {[string match ipx:* $obj]} {
        return ipx
    }
    if {$sa::project ne "" && $obj eq [dict get $sa::project name]} {
        return project
    }
    if {$obj in {sources_1 constrs_1 sim_1}} {
        return fileset
    }
    if {$obj in {synth_1 impl_1}} {
        return run
    }
    set p [sa::path $obj]
    if {[dict exists $sa::cells [string range $p 1 end]]} {
        return cell
    }
    foreach {kind var} {pin pins ipin ipins port ports iport iports space spaces seg segs} {
        if {[dict exists [set sa::$var] $p]} {
            return $kind
        }
    }
    sa::fail "no object '$obj' (it was never created, or the name is misspelled)"
}

proc set_property {args} {
    sa::record set_property {*}$args
    lassign [sa::parse_args set_property {-dict 1 -quiet 0} $args] o pos
    if {[dict exists $o -dict]} {
        set pairs [dict get $o -dict]
        set objects $pos
    } else {
        if {[llength $pos] < 3} {
            sa::fail "set_property: give a property, a value and objects (got: $pos)"
        }
        set pairs [lrange $pos 0 1]
        set objects [lrange $pos 2 end]
    }
    if {[llength $pairs] % 2} {
        sa::fail "set_property -dict: odd number of elements in {$pairs}"
    }
    if {[llength $objects] == 0 || [join $objects ""] eq ""} {
        sa::fail "set_property [lindex $pairs 0]: no object to set it on"
    }
    foreach obj [concat {*}$objects] {
        foreach {prop value} $pairs {
            sa::set_one $obj $prop $value
        }
    }
    return ""
}

proc sa::set_one {obj prop value} {
    switch -- [sa::kind_of $obj] {
        project {
            switch -- [string tolower $prop] {
                board_part {
                    if {$value ni [sa::opt board-parts]} {
                        sa::fail "set_property board_part: the board_part definition was not found for $value (Board 49-71: board files not installed)"
                    }
                    dict set sa::project board_part $value
                }
                ip_repo_paths {
                    set paths {}
                    foreach p $value {
                        lappend paths [file normalize $p]
                    }
                    dict set sa::project ip_repo_paths $paths
                }
                target_language - default_lib - simulator_language {}
                default {
                    sa::fail "set_property $prop on the project is not modelled"
                }
            }
        }
        fileset {
            if {[string tolower $prop] ne "top"} {
                sa::fail "set_property $prop on fileset $obj is not modelled"
            }
            dict set sa::project top $value
        }
        run {
            if {![string match -nocase STEPS.* $prop] && [string tolower $prop] ni {strategy flow}} {
                sa::fail "set_property $prop on run $obj is not modelled"
            }
        }
        cell {
            sa::set_cell_property [string range [sa::path $obj] 1 end] $prop $value
        }
        ipx {
            sa::ipx_set $obj $prop $value
        }
        default {
            sa::fail "set_property $prop on [sa::kind_of $obj] $obj is not modelled"
        }
    }
}

proc sa::set_cell_property {cell prop value} {
    variable cells
    set c [dict get $cells $cell]
    set ip [dict get $c ip]
    if {![string match CONFIG.* $prop]} {
        sa::fail "set_property $prop on cell $cell: only CONFIG.* parameters are modelled"
    }
    set name [string range $prop 7 end]
    set params [dict get $c params]
    if {![dict exists $params $name]} {
        if {[dict size $params] == 0} {
            sa::fail "cell $cell ([dict get $c vlnv]) has no parameter CONFIG.$name (it has no configurable parameters)"
        }
        sa::fail "$ip (cell $cell) has no parameter CONFIG.$name; known: [join [lsort [sa::short_list [dict keys $params]]] {, }]"
    }
    sa::check_value "$ip $cell" $name [lindex [dict get $params $name] 0] $value
    dict set cells $cell props $name $value
    dict set cells $cell explicit $name 1
    sa::bd_changed
    sa::refresh $cell
}

# Long generated lists (S00..S63_HAS_REGSLICE) shown once.
proc sa::short_list {names} {
    set out {}
    foreach n $names {
        regsub {^([SM])\d\d_} $n {\1nn_} n
        regsub {^IN\d+_WIDTH$} $n {INn_WIDTH} n
        if {$n ni $out} {
            lappend out $n
        }
    }
    return $out
}

proc get_property {args} {
    sa::record get_property {*}$args
    lassign [sa::parse_args get_property {-quiet 0} $args] o pos
    lassign $pos prop obj
    switch -- [sa::kind_of $obj] {
        run {
            set run [set sa::runs($obj)]
            switch -- [string toupper $prop] {
                PROGRESS {return [dict get $run progress]}
                STATUS {return [dict get $run status]}
                DIRECTORY {return [dict get $run dir]}
            }
            sa::fail "get_property $prop of run $obj is not modelled"
        }
        cell {
            set cell [string range [sa::path $obj] 1 end]
            if {[string toupper $prop] eq "VLNV"} {
                return [dict get $sa::cells $cell vlnv]
            }
            if {[string match CONFIG.* $prop]} {
                set name [string range $prop 7 end]
                if {![dict exists $sa::cells $cell params $name]} {
                    sa::fail "cell $cell has no parameter $prop"
                }
                return [sa::cfg $cell $name]
            }
        }
        project {
            switch -- [string tolower $prop] {
                board_part {return [dict get $sa::project board_part]}
                part {return [dict get $sa::project part]}
                directory {return [dict get $sa::project dir]}
            }
        }
        ipx {
            return [sa::ipx_get $obj $prop]
        }
    }
    sa::fail "get_property $prop of $obj is not modelled"
}

# ============================================================================ block design

namespace eval sa {
    variable runs
    array set runs {}
    variable bd_generation 0
    variable validated -1
}

proc sa::bd_changed {} {
    variable bd_generation
    incr bd_generation
}

proc sa::need_bd {cmd} {
    if {$sa::bd eq ""} {
        sa::fail "$cmd: no block design is open (create_bd_design first)"
    }
}

proc create_bd_design {args} {
    sa::record create_bd_design {*}$args
    sa::need_project create_bd_design
    lassign [sa::parse_args create_bd_design {-dir 1} $args] o pos
    if {[llength $pos] != 1} {
        sa::fail "create_bd_design: give one design name"
    }
    if {$sa::bd ne ""} {
        sa::fail "create_bd_design: design $sa::bd is already open"
    }
    set sa::bd [lindex $pos 0]
    set dir [dict get $sa::project dir]
    set name [dict get $sa::project name]
    set bd_file [file join $dir $name.srcs sources_1 bd $sa::bd $sa::bd.bd]
    file mkdir [file dirname $bd_file]
    dict set sa::project bd_file $bd_file
    foreach var {cells pins ipins ports iports spaces segs nets net_of inet_of assigned excluded} {
        set sa::$var [dict create]
    }
    sa::bd_changed
    return $sa::bd
}

proc current_bd_design {args} {
    sa::record current_bd_design {*}$args
    sa::need_bd current_bd_design
    return $sa::bd
}

proc create_bd_cell {args} {
    sa::record create_bd_cell {*}$args
    sa::need_bd create_bd_cell
    lassign [sa::parse_args create_bd_cell {-type 1 -vlnv 1 -reference 1} $args] o pos
    if {[llength $pos] != 1} {
        sa::fail "create_bd_cell: give one cell name (got: $pos)"
    }
    set name [lindex $pos 0]
    if {[dict get $o -type] ne "ip" || ![dict exists $o -vlnv]} {
        sa::fail "create_bd_cell $name: only -type ip -vlnv cells are modelled"
    }
    if {![regexp {^[A-Za-z][A-Za-z0-9_]*$} $name]} {
        sa::fail "create_bd_cell: '$name' is not a valid cell name"
    }
    if {[dict exists $sa::cells $name] || [dict exists $sa::ports /$name] || [dict exists $sa::iports /$name]} {
        sa::fail "create_bd_cell: an object named $name already exists"
    }
    set vlnv [dict get $o -vlnv]
    set parts [split $vlnv :]
    if {[llength $parts] ni {3 4}} {
        sa::fail "create_bd_cell $name: '$vlnv' is not a VLNV (vendor:library:name[:version])"
    }
    lassign $parts vendor library ipname version
    set xilinx [sa::xilinx_ips]
    if {$vendor eq "xilinx.com" && $library eq "ip" && [dict exists $xilinx $ipname]} {
        lassign [dict get $xilinx $ipname] have family
        if {$version ne "" && $version ne $have} {
            sa::fail "create_bd_cell $name: $vlnv is not in the catalog of Vivado [sa::opt vivado-version] ($ipname is version $have)"
        }
        set part_family [sa::part_family [dict get $sa::project part]]
        if {$family ne "any" && $family ne $part_family} {
            sa::fail "create_bd_cell $name: $ipname is not available for part [dict get $sa::project part]"
        }
        dict set sa::cells $name [dict create ip $ipname vlnv xilinx.com:ip:$ipname:$have \
            params [sa::known_params $ipname] props {} explicit {} preset {} def {}]
    } else {
        set match {}
        foreach full [dict keys $sa::catalog] {
            if {$full eq $vlnv || ([llength $parts] == 3 && [string match $vlnv:* $full])} {
                lappend match $full
            }
        }
        if {[llength $match] == 0} {
            sa::fail "create_bd_cell $name: IP $vlnv is not in the IP catalog (repositories: [dict get $sa::project ip_repo_paths])"
        }
        set full [lindex [lsort $match] end]
        dict set sa::cells $name [dict create ip $ipname vlnv $full params {} props {} explicit {} preset {} \
            def [dict get $sa::catalog $full]]
    }
    sa::bd_changed
    sa::refresh $name
    return /$name
}

proc sa::lookup {cmd var kind names quiet} {
    set out {}
    foreach name [concat {*}$names] {
        set p [sa::path $name]
        if {[dict exists [set sa::$var] $p]} {
            lappend out $p
        } elseif {!$quiet} {
            set cell [lindex [split [string range $p 1 end] /] 0]
            set hint ""
            if {[dict exists $sa::cells $cell] && $var in {pins ipins}} {
                set have {}
                foreach k [dict keys [set sa::$var] /$cell/*] {
                    lappend have [lindex [split $k /] end]
                }
                set hint " (cell $cell has [expr {$var eq "pins" ? "pins" : "interface pins"}]: [join [lsort $have] {, }])"
            } elseif {$var in {pins ipins spaces segs} && ![dict exists $sa::cells $cell]} {
                set hint " (there is no cell $cell)"
            }
            sa::fail "$cmd: no $kind $p$hint"
        }
    }
    return $out
}

proc get_bd_cells {args} {
    sa::record get_bd_cells {*}$args
    sa::need_bd get_bd_cells
    lassign [sa::parse_args get_bd_cells {-quiet 0} $args] o pos
    set out {}
    foreach name [concat {*}$pos] {
        set n [string range [sa::path $name] 1 end]
        if {[dict exists $sa::cells $n]} {
            lappend out /$n
        } elseif {![dict exists $o -quiet]} {
            sa::fail "get_bd_cells: no cell $n"
        }
    }
    return $out
}

proc get_bd_pins {args} {
    sa::record get_bd_pins {*}$args
    sa::need_bd get_bd_pins
    lassign [sa::parse_args get_bd_pins {-quiet 0} $args] o pos
    return [sa::lookup get_bd_pins pins pin $pos [dict exists $o -quiet]]
}

proc get_bd_intf_pins {args} {
    sa::record get_bd_intf_pins {*}$args
    sa::need_bd get_bd_intf_pins
    lassign [sa::parse_args get_bd_intf_pins {-quiet 0} $args] o pos
    return [sa::lookup get_bd_intf_pins ipins "interface pin" $pos [dict exists $o -quiet]]
}

proc get_bd_ports {args} {
    sa::record get_bd_ports {*}$args
    sa::need_bd get_bd_ports
    lassign [sa::parse_args get_bd_ports {-quiet 0} $args] o pos
    return [sa::lookup get_bd_ports ports port $pos [dict exists $o -quiet]]
}

proc get_bd_intf_ports {args} {
    sa::record get_bd_intf_ports {*}$args
    sa::need_bd get_bd_intf_ports
    lassign [sa::parse_args get_bd_intf_ports {-quiet 0} $args] o pos
    return [sa::lookup get_bd_intf_ports iports "interface port" $pos [dict exists $o -quiet]]
}

proc get_bd_addr_spaces {args} {
    sa::record get_bd_addr_spaces {*}$args
    sa::need_bd get_bd_addr_spaces
    lassign [sa::parse_args get_bd_addr_spaces {-quiet 0} $args] o pos
    return [sa::lookup get_bd_addr_spaces spaces "address space" $pos [dict exists $o -quiet]]
}

proc get_bd_addr_segs {args} {
    sa::record get_bd_addr_segs {*}$args
    sa::need_bd get_bd_addr_segs
    lassign [sa::parse_args get_bd_addr_segs {-quiet 0} $args] o pos
    return [sa::lookup get_bd_addr_segs segs "address segment" $pos [dict exists $o -quiet]]
}

proc create_bd_port {args} {
    sa::record create_bd_port {*}$args
    sa::need_bd create_bd_port
    lassign [sa::parse_args create_bd_port {-dir 1 -type 1 -from 1 -to 1 -freq_hz 1} $args] o pos
    set name [lindex $pos 0]
    if {[dict exists $sa::cells $name] || [dict exists $sa::ports /$name] || [dict exists $sa::iports /$name]} {
        sa::fail "create_bd_port: an object named $name already exists"
    }
    set dir [dict get $o -dir]
    if {$dir ni {I O}} {
        sa::fail "create_bd_port $name: -dir must be I or O"
    }
    set type data
    if {[dict exists $o -type]} {
        set type [dict get $o -type]
    }
    dict set sa::ports /$name [dict create dir $dir type $type cell {} name $name required 0 polarity {}]
    sa::bd_changed
    return /$name
}

proc create_bd_intf_port {args} {
    sa::record create_bd_intf_port {*}$args
    sa::need_bd create_bd_intf_port
    lassign [sa::parse_args create_bd_intf_port {-mode 1 -vlnv 1} $args] o pos
    set name [lindex $pos 0]
    if {[dict exists $sa::cells $name] || [dict exists $sa::ports /$name] || [dict exists $sa::iports /$name]} {
        sa::fail "create_bd_intf_port: an object named $name already exists"
    }
    set buses {xilinx.com:interface:ddrx_rtl:1.0 ddrx xilinx.com:display_processing_system7:fixedio_rtl:1.0 fixedio
        xilinx.com:interface:aximm_rtl:1.0 aximm xilinx.com:interface:axis_rtl:1.0 axis}
    set vlnv [dict get $o -vlnv]
    if {![dict exists $buses $vlnv]} {
        sa::fail "create_bd_intf_port $name: interface $vlnv is not modelled"
    }
    set mode [dict get $o -mode]
    if {[string totitle $mode] ni {Master Slave}} {
        sa::fail "create_bd_intf_port $name: -mode must be Master or Slave"
    }
    dict set sa::iports /$name [dict create mode [string totitle $mode] bus [dict get $buses $vlnv] \
        cell {} name $name required 0 aclk {}]
    sa::bd_changed
    return /$name
}

# ----------------------------------------------------------------------------- nets

proc sa::endpoint {obj what} {
    set p [sa::path $obj]
    if {[dict exists $sa::pins $p]} {
        return [list pin $p [dict get $sa::pins $p]]
    }
    if {[dict exists $sa::ports $p]} {
        return [list port $p [dict get $sa::ports $p]]
    }
    if {[dict exists $sa::ipins $p]} {
        return [list ipin $p [dict get $sa::ipins $p]]
    }
    if {[dict exists $sa::iports $p]} {
        return [list iport $p [dict get $sa::iports $p]]
    }
    sa::fail "$what: no pin or port $p"
}

proc connect_bd_net {args} {
    sa::record connect_bd_net {*}$args
    sa::need_bd connect_bd_net
    lassign [sa::parse_args connect_bd_net {-net 1 -boundary_type 1} $args] o pos
    set objs [concat {*}$pos]
    if {[llength $objs] < 2} {
        sa::fail "connect_bd_net: needs two or more pins or ports (got: [join $objs { }]); a get_bd_pins found nothing?"
    }
    set existing {}
    set types {}
    foreach obj $objs {
        lassign [sa::endpoint $obj connect_bd_net] kind p info
        if {$kind ni {pin port}} {
            sa::fail "connect_bd_net: $p is an interface; use connect_bd_intf_net"
        }
        if {[dict exists $sa::net_of $p]} {
            set n [dict get $sa::net_of $p]
            if {$n ni $existing} {
                lappend existing $n
            }
        }
        set t [dict get $info type]
        if {$t ne "data"} {
            dict set types $p $t
        }
    }
    if {[llength [lsort -unique [dict values $types]]] > 1} {
        set desc {}
        dict for {p t} $types {
            lappend desc "$p ($t)"
        }
        sa::fail "connect_bd_net: connects pins of different types: [join $desc {, }]"
    }
    if {[llength $existing] > 1} {
        sa::fail "connect_bd_net: [join $objs { }] are already on different nets ([join $existing {, }])"
    }
    if {[llength $existing] == 1} {
        set net [lindex $existing 0]
        if {[dict exists $o -net] && [dict get $o -net] ne $net} {
            sa::fail "connect_bd_net -net [dict get $o -net]: a pin is already on net $net"
        }
    } else {
        if {[dict exists $o -net]} {
            set net [dict get $o -net]
            if {[dict exists $sa::nets $net]} {
                sa::fail "connect_bd_net: net $net already exists"
            }
        } else {
            set net net_[incr sa::net_counter]
        }
        dict set sa::nets $net {}
    }
    foreach obj $objs {
        set p [sa::path $obj]
        if {![dict exists $sa::net_of $p]} {
            dict set sa::net_of $p $net
            dict lappend sa::nets $net $p
        }
    }
    set drivers [sa::net_drivers $net]
    if {[llength $drivers] > 1} {
        sa::fail "connect_bd_net: net $net has several drivers: [join $drivers {, }]"
    }
    sa::bd_changed
    return $net
}

proc sa::net_drivers {net} {
    set out {}
    foreach p [dict get $sa::nets $net] {
        if {[dict exists $sa::pins $p] && [dict get $sa::pins $p dir] eq "O"} {
            lappend out $p
        }
        if {[dict exists $sa::ports $p] && [dict get $sa::ports $p dir] eq "I"} {
            lappend out $p
        }
    }
    return $out
}

proc connect_bd_intf_net {args} {
    sa::record connect_bd_intf_net {*}$args
    sa::need_bd connect_bd_intf_net
    lassign [sa::parse_args connect_bd_intf_net {-intf_net 1 -boundary_type 1} $args] o pos
    set objs [concat {*}$pos]
    if {[llength $objs] != 2} {
        sa::fail "connect_bd_intf_net: needs exactly two interface pins or ports (got: [join $objs { }]); a get_bd_intf_pins found nothing?"
    }
    set ends {}
    foreach obj $objs {
        lassign [sa::endpoint $obj connect_bd_intf_net] kind p info
        if {$kind ni {ipin iport}} {
            sa::fail "connect_bd_intf_net: $p is not an interface; use connect_bd_net"
        }
        if {[dict exists $sa::inet_of $p]} {
            sa::fail "connect_bd_intf_net: $p is already connected (to [dict get $sa::inet_of $p]); an interface connects once"
        }
        lappend ends [list $kind $p $info]
    }
    lassign $ends a b
    lassign $a ka pa ia
    lassign $b kb pb ib
    if {[dict get $ia bus] ne [dict get $ib bus]} {
        sa::fail "connect_bd_intf_net: $pa ([dict get $ia bus]) and $pb ([dict get $ib bus]) are different interface types"
    }
    set ma [dict get $ia mode]
    set mb [dict get $ib mode]
    if {$ka eq "ipin" && $kb eq "ipin"} {
        if {$ma eq $mb} {
            sa::fail "connect_bd_intf_net: $pa and $pb are both $ma interfaces; connect a Master to a Slave"
        }
    } elseif {$ka ne $kb} {
        if {$ma ne $mb} {
            sa::fail "connect_bd_intf_net: port and pin modes differ ($pa $ma, $pb $mb); an external port takes the mode of the pin it exports"
        }
    } else {
        sa::fail "connect_bd_intf_net: $pa and $pb are both ports"
    }
    dict set sa::inet_of $pa $pb
    dict set sa::inet_of $pb $pa
    sa::bd_changed
    return "$pa:$pb"
}

# ----------------------------------------------------------------------------- automation

# Only the processing-system rules are modelled (board preset, external DDR/FIXED_IO);
# every connection rule (axi4, clkrst, ...) must be written out instead.
proc apply_bd_automation {args} {
    sa::record apply_bd_automation {*}$args
    sa::need_bd apply_bd_automation
    lassign [sa::parse_args apply_bd_automation {-rule 1 -config 1 -opts 1} $args] o pos
    set rule [dict get $o -rule]
    set config [dict get $o -config]
    if {[llength $config] % 2} {
        sa::fail "apply_bd_automation: -config {$config} is not a list of key value pairs"
    }
    if {$rule ni {xilinx.com:bd_rule:processing_system7 xilinx.com:bd_rule:zynq_ultra_ps_e}} {
        sa::fail "apply_bd_automation -rule $rule is not modelled: write the cells and connections out explicitly"
    }
    set cells [get_bd_cells {*}$pos]
    if {[llength $cells] != 1} {
        sa::fail "apply_bd_automation $rule: apply it to exactly one cell"
    }
    set cell [string range [lindex $cells 0] 1 end]
    set ip [dict get $sa::cells $cell ip]
    switch -- $rule {
        xilinx.com:bd_rule:processing_system7 {
            if {$ip ne "processing_system7"} {
                sa::fail "apply_bd_automation $rule on $cell, which is a $ip"
            }
            dict for {key value} $config {
                switch -- $key {
                    make_external {
                        foreach intf [split $value ,] {
                            set intf [string trim $intf]
                            if {$intf ni {DDR FIXED_IO}} {
                                sa::fail "apply_bd_automation: make_external $intf is not modelled"
                            }
                            set vlnv [dict get {DDR xilinx.com:interface:ddrx_rtl:1.0
                                FIXED_IO xilinx.com:display_processing_system7:fixedio_rtl:1.0} $intf]
                            create_bd_intf_port -mode Master -vlnv $vlnv $intf
                            connect_bd_intf_net [get_bd_intf_ports $intf] [get_bd_intf_pins $cell/$intf]
                        }
                    }
                    apply_board_preset {
                        if {$value} {
                            sa::apply_preset $cell
                        }
                    }
                    Master - Slave {
                        if {$value ne "Disable"} {
                            sa::fail "apply_bd_automation: $key $value (an AXI connection by automation) is not modelled"
                        }
                    }
                    default {
                        sa::fail "apply_bd_automation: option $key of $rule is not modelled"
                    }
                }
            }
        }
        xilinx.com:bd_rule:zynq_ultra_ps_e {
            if {$ip ne "zynq_ultra_ps_e"} {
                sa::fail "apply_bd_automation $rule on $cell, which is a $ip"
            }
            dict for {key value} $config {
                if {$key ne "apply_board_preset"} {
                    sa::fail "apply_bd_automation: option $key of $rule is not modelled"
                }
                if {$value} {
                    sa::apply_preset $cell
                }
            }
        }
        default {
            sa::fail "apply_bd_automation -rule $rule is not modelled: write the cells and connections out explicitly"
        }
    }
    sa::bd_changed
    return ""
}

# A board preset sets the PS from the board files. Their contents are not known here, so the
# clock parameters become "from the preset" (a later explicit setting replaces them, and the
# clock check refuses to trust them otherwise) and, as presets commonly do, the PS's AXI
# master ports are enabled (ZU+ presets enable HPM0/HPM1 FPD and HPM0 LPD).
proc sa::apply_preset {cell} {
    set bp [dict get $sa::project board_part]
    if {$bp eq ""} {
        sa::fail "apply_board_preset on $cell: the project has no board part"
    }
    set ip [dict get $sa::cells $cell ip]
    if {$ip eq "processing_system7"} {
        set clocks {PCW_CRYSTAL_PERIPHERAL_FREQMHZ PCW_FPGA0_PERIPHERAL_FREQMHZ}
        set enables {}
    } else {
        set clocks {PSU__PSS_REF_CLK__FREQMHZ PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ}
        set enables {PSU__USE__M_AXI_GP0 PSU__USE__M_AXI_GP1 PSU__USE__M_AXI_GP2}
    }
    foreach p $clocks {
        dict set sa::cells $cell props $p "preset:$bp"
        dict unset sa::cells $cell explicit $p
    }
    foreach p $enables {
        dict set sa::cells $cell props $p 1
    }
    dict set sa::cells $cell preset $bp
    sa::refresh $cell
}

# ============================================================================ addresses

# Slave segments a master address space reaches through the nets: {seg window} pairs, the
# window being the master port's decode window {base size}.
proc sa::reachable {space} {
    set s [dict get $sa::spaces $space]
    set cell [dict get $s cell]
    set out [dict create]
    dict for {ipin window} [dict get $s windows] {
        foreach seg [sa::walk /$cell/$ipin {}] {
            dict set out $seg $window
        }
    }
    return $out
}

proc sa::walk {ipin seen} {
    if {$ipin in $seen || ![dict exists $sa::inet_of $ipin]} {
        return {}
    }
    lappend seen $ipin
    set peer [dict get $sa::inet_of $ipin]
    if {![dict exists $sa::ipins $peer]} {
        return {}
    }
    set info [dict get $sa::ipins $peer]
    set cell [dict get $info cell]
    if {[dict get $sa::cells $cell route]} {
        # an interconnect: any slave port reaches every master port
        set out {}
        foreach other [dict keys $sa::ipins /$cell/*] {
            if {[dict get $sa::ipins $other mode] eq "Master"} {
                lappend out {*}[sa::walk $other $seen]
            }
        }
        return $out
    }
    set out {}
    dict for {n seg} $sa::segs {
        if {[dict get $seg ipin] eq $peer} {
            lappend out $n
        }
    }
    return $out
}

proc assign_bd_address {args} {
    sa::record assign_bd_address {*}$args
    sa::need_bd assign_bd_address
    lassign [sa::parse_args assign_bd_address {-offset 1 -range 1 -target_address_space 1 -force 0 \
        -with_name 1 -external 0} $args] o pos
    set segs [concat {*}$pos]
    if {![dict exists $o -target_address_space] || ![dict exists $o -offset] || ![dict exists $o -range]} {
        sa::fail "assign_bd_address [join $args { }]: automatic assignment is not modelled; give -offset, -range and -target_address_space"
    }
    if {[llength $segs] != 1} {
        sa::fail "assign_bd_address: give exactly one segment (got: [join $segs { }]); a get_bd_addr_segs found nothing?"
    }
    set space [lindex [sa::lookup assign_bd_address spaces "address space" [list [dict get $o -target_address_space]] 0] 0]
    set seg [lindex [sa::lookup assign_bd_address segs "address segment" $segs 0] 0]
    set offset [sa::size [dict get $o -offset]]
    set range [sa::size [dict get $o -range]]
    set reach [sa::reachable $space]
    if {![dict exists $reach $seg]} {
        sa::fail "assign_bd_address: $seg cannot be reached from $space through the block design's connections"
    }
    if {[dict exists $sa::assigned $space|$seg] || [dict exists $sa::excluded $space|$seg]} {
        sa::fail "assign_bd_address: $seg is already assigned or excluded in $space"
    }
    if {![sa::is_pow2 $range]} {
        sa::fail "assign_bd_address $seg: range [dict get $o -range] is not a power of two"
    }
    if {$offset % $range} {
        sa::fail "assign_bd_address $seg: offset [sa::hex $offset] is not aligned to its range [dict get $o -range]"
    }
    set info [dict get $sa::segs $seg]
    if {$range < [dict get $info min]} {
        sa::fail "assign_bd_address $seg: range [dict get $o -range] is smaller than the segment's [dict get $info min] bytes"
    }
    if {[dict get $info fixed]} {
        if {$offset != [dict get $info base]} {
            sa::fail "assign_bd_address $seg: the segment is at [sa::hex [dict get $info base]], not [sa::hex $offset]"
        }
        if {$range > [dict get $info max]} {
            sa::fail "assign_bd_address $seg: range [dict get $o -range] is larger than the segment ([dict get $info max] bytes)"
        }
    }
    lassign [dict get $reach $seg] wbase wsize
    if {$offset < $wbase || $offset + $range > $wbase + $wsize} {
        sa::fail "assign_bd_address $seg: [sa::hex $offset]+[dict get $o -range] is outside the window [sa::hex $wbase]..[sa::hex [expr {$wbase + $wsize - 1}]] of the master port of $space"
    }
    dict for {key a} $sa::assigned {
        lassign [split $key |] s other
        if {$s eq $space} {
            set lo [dict get $a offset]
            set hi [expr {$lo + [dict get $a range]}]
            if {$offset < $hi && $lo < $offset + $range} {
                sa::fail "assign_bd_address $seg: [sa::hex $offset]+[dict get $o -range] overlaps $other at [sa::hex $lo] in $space"
            }
        }
    }
    dict set sa::assigned $space|$seg [dict create offset $offset range $range]
    sa::bd_changed
    return ""
}

proc exclude_bd_addr_seg {args} {
    sa::record exclude_bd_addr_seg {*}$args
    sa::need_bd exclude_bd_addr_seg
    lassign [sa::parse_args exclude_bd_addr_seg {-target_address_space 1 -offset 1 -range 1} $args] o pos
    if {![dict exists $o -target_address_space]} {
        sa::fail "exclude_bd_addr_seg: give -target_address_space"
    }
    set space [lindex [sa::lookup exclude_bd_addr_seg spaces "address space" [list [dict get $o -target_address_space]] 0] 0]
    set segs [sa::lookup exclude_bd_addr_seg segs "address segment" $pos 0]
    if {[llength $segs] != 1} {
        sa::fail "exclude_bd_addr_seg: give exactly one segment"
    }
    set seg [lindex $segs 0]
    if {![dict exists [sa::reachable $space] $seg]} {
        sa::fail "exclude_bd_addr_seg: $seg cannot be reached from $space"
    }
    if {[dict exists $sa::assigned $space|$seg] || [dict exists $sa::excluded $space|$seg]} {
        sa::fail "exclude_bd_addr_seg: $seg is already assigned or excluded in $space"
    }
    dict set sa::excluded $space|$seg 1
    sa::bd_changed
    return ""
}

# ============================================================================ validation

proc sa::clock_net {ipin} {
    set info [dict get $sa::ipins $ipin]
    set aclk [dict get $info aclk]
    if {$aclk eq ""} {
        return ""
    }
    set pin /[dict get $info cell]/$aclk
    if {[dict exists $sa::net_of $pin]} {
        return [dict get $sa::net_of $pin]
    }
    return ""
}

proc sa::num_close {a b} {
    return [expr {abs($a - $b) <= 1e-3 * max(abs($a), abs($b))}]
}

# "" when CONFIG.<param> of the PS is the board's frequency, else what is wrong.
proc sa::clock_problem {cell param expect what} {
    set v [sa::cfg $cell $param]
    if {[string match preset:* $v]} {
        return "$cell CONFIG.$param ($what) comes from the board preset ([string range $v 7 end]) and is not set explicitly after it; the board needs $expect MHz"
    }
    if {![sa::num_close $v $expect]} {
        set extra ""
        if {$param eq "PCW_CRYSTAL_PERIPHERAL_FREQMHZ"} {
            set extra ": PYNQ would program FCLK0 with divisors computed for the wrong crystal (reference/pynq_flow.md §1.9)"
        }
        return "$cell CONFIG.$param ($what) is $v MHz but the board's is $expect MHz$extra"
    }
    return ""
}

proc validate_bd_design {args} {
    sa::record validate_bd_design {*}$args
    sa::need_bd validate_bd_design
    set problems {}
    # pins: required inputs connected to a driven net; every net with loads has one driver
    dict for {p info} $sa::pins {
        if {[dict get $info required] && [dict get $info dir] eq "I"} {
            if {![dict exists $sa::net_of $p]} {
                lappend problems "[dict get $info type] input $p is not connected"
            } elseif {[llength [sa::net_drivers [dict get $sa::net_of $p]]] == 0} {
                lappend problems "[dict get $info type] input $p is on net [dict get $sa::net_of $p], which nothing drives"
            }
        }
    }
    dict for {net members} $sa::nets {
        set drivers [sa::net_drivers $net]
        if {[llength $drivers] > 1} {
            lappend problems "net $net has several drivers: [join $drivers {, }]"
        }
        if {[llength $drivers] == 1} {
            set d [lindex $drivers 0]
            set dinfo [expr {[dict exists $sa::pins $d] ? [dict get $sa::pins $d] : [dict get $sa::ports $d]}]
            foreach m $members {
                if {$m eq $d || ![dict exists $sa::pins $m]} {
                    continue
                }
                set minfo [dict get $sa::pins $m]
                if {[dict get $minfo type] eq "rst" && [dict get $dinfo polarity] ne "" && [dict get $minfo polarity] ne ""
                    && [dict get $dinfo polarity] ne [dict get $minfo polarity]} {
                    lappend problems "reset $m ([dict get $minfo polarity]) is driven by $d ([dict get $dinfo polarity])"
                }
            }
        }
    }
    # interface pins: required ones connected; AXI connections within one clock domain
    dict for {p info} $sa::ipins {
        if {[dict get $info required] && ![dict exists $sa::inet_of $p]} {
            if {[dict get $info bus] eq "axis"} {
                # Vivado: BD 41-759 critical warning, the open input tied to 0
                set tied [expr {[dict get $info mode] eq "Slave" ? "TVALID (no data ever arrives)" : "TREADY (the first beat never leaves)"}]
                lappend problems "AXI-Stream interface $p ([dict get $info mode] axis) is not connected: Vivado would tie its $tied and the kernel would never finish"
            } else {
                lappend problems "interface $p ([dict get $info mode] [dict get $info bus]) is not connected"
            }
        }
    }
    dict for {a b} $sa::inet_of {
        if {[string compare $a $b] > 0 || ![dict exists $sa::ipins $a] || ![dict exists $sa::ipins $b]} {
            continue
        }
        if {[dict get $sa::ipins $a bus] ni {aximm axis}} {
            continue
        }
        set ca [sa::clock_net $a]
        set cb [sa::clock_net $b]
        if {$ca eq "" || $cb eq ""} {
            lappend problems "AXI connection $a - $b: the clock of [expr {$ca eq "" ? $a : $b}] is not connected"
        } elseif {$ca ne $cb} {
            lappend problems "AXI connection $a - $b crosses clock domains (nets $ca and $cb)"
        }
    }
    # addresses: every reachable segment assigned or excluded; control slaves assigned
    set seen_slave [dict create]
    dict for {space sinfo} $sa::spaces {
        set has_ddr 0
        dict for {seg window} [sa::reachable $space] {
            if {[dict exists $sa::assigned $space|$seg]} {
                dict set seen_slave $seg 1
                if {[dict get $sa::segs $seg ddr]} {
                    set has_ddr 1
                }
            } elseif {![dict exists $sa::excluded $space|$seg]} {
                lappend problems "$seg is reachable from $space but has no address there (assign or exclude it)"
            }
        }
        set ip [dict get $sa::cells [dict get $sinfo cell] ip]
        if {$ip ni {processing_system7 zynq_ultra_ps_e} && !$has_ddr} {
            lappend problems "master $space has no PS DDR segment assigned: the kernel cannot reach memory"
        }
    }
    dict for {seg info} $sa::segs {
        if {![dict get $info fixed] && ![dict exists $seen_slave $seg]} {
            lappend problems "slave segment $seg has no address in any master's map"
        }
    }
    # the PS clocks are the board's, and the fabric runs from the PS's first PL clock
    dict for {cell c} $sa::cells {
        set ip [dict get $c ip]
        if {$ip ni {processing_system7 zynq_ultra_ps_e}} {
            continue
        }
        if {$ip eq "processing_system7"} {
            set ref PCW_CRYSTAL_PERIPHERAL_FREQMHZ
            set pl PCW_FPGA0_PERIPHERAL_FREQMHZ
            set clk_pin /$cell/FCLK_CLK0
        } else {
            set ref PSU__PSS_REF_CLK__FREQMHZ
            set pl PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ
            set clk_pin /$cell/pl_clk0
        }
        foreach {param expect what} [list $ref [sa::opt expect-ps-ref-mhz] "PS reference clock" \
                $pl [sa::opt expect-pl-mhz] "PL clock"] {
            if {$expect ne ""} {
                set problem [sa::clock_problem $cell $param $expect $what]
                if {$problem ne ""} {
                    lappend problems $problem
                }
            }
        }
        dict for {p info} $sa::pins {
            if {[dict get $info type] eq "clk" && [dict get $info dir] eq "I" && [dict exists $sa::net_of $p]} {
                set drivers [sa::net_drivers [dict get $sa::net_of $p]]
                if {[llength $drivers] == 1 && [lindex $drivers 0] ne $clk_pin} {
                    lappend problems "clock $p is driven by [lindex $drivers 0], not the PS's $clk_pin"
                }
            }
        }
    }
    if {[llength $problems] > 0} {
        sa::fail "validate_bd_design: [llength $problems] problem(s):\n  [join $problems "\n  "]"
    }
    set sa::validated $sa::bd_generation
    return ""
}

proc save_bd_design {args} {
    sa::record save_bd_design {*}$args
    sa::need_bd save_bd_design
    set fh [open [dict get $sa::project bd_file] w]
    puts $fh "stand-in block design $sa::bd: [dict size $sa::cells] cells"
    close $fh
    return ""
}

proc regenerate_bd_layout {args} {
    sa::record regenerate_bd_layout {*}$args
    return ""
}

# ============================================================================ files, products, runs

proc sa::produce {path content} {
    file mkdir [file dirname $path]
    set fh [open $path w]
    puts $fh $content
    close $fh
    lappend sa::produced [file normalize $path]
}

proc get_files {args} {
    sa::record get_files {*}$args
    sa::need_project get_files
    lassign [sa::parse_args get_files {-quiet 0 -of_objects 1 -filter 1 -all 0} $args] o pos
    set known [dict get $sa::project files]
    if {[dict get $sa::project bd_file] ne ""} {
        lappend known [dict get $sa::project bd_file]
    }
    set out {}
    foreach pattern $pos {
        set hit 0
        foreach f $known {
            if {$f eq $pattern || [string match */$pattern $f] || [string match $pattern [file tail $f]]} {
                lappend out $f
                set hit 1
            }
        }
        if {!$hit && ![dict exists $o -quiet]} {
            sa::fail "get_files: no file $pattern in the project"
        }
    }
    return $out
}

proc sa::bd_file_arg {cmd files} {
    set files [concat {*}$files]
    if {[llength $files] != 1 || $files ne [dict get $sa::project bd_file]} {
        sa::fail "$cmd: expects the block design file [dict get $sa::project bd_file] (got: $files)"
    }
}

proc generate_target {args} {
    sa::record generate_target {*}$args
    sa::need_bd generate_target
    lassign [sa::parse_args generate_target {-force 0 -quiet 0} $args] o pos
    if {[lindex $pos 0] ne "all"} {
        sa::fail "generate_target: only `generate_target all <bd>` is modelled"
    }
    sa::bd_file_arg generate_target [lrange $pos 1 end]
    if {$sa::validated != $sa::bd_generation} {
        sa::fail "generate_target: the block design changed after the last validate_bd_design (or was never validated)"
    }
    set dir [dict get $sa::project dir]
    set name [dict get $sa::project name]
    # the hardware handoff: .gen/ since Vivado 2020.2, .srcs/ before
    set where [expr {[sa::version_at_least 2020.2] ? "gen" : "srcs"}]
    set hwh [file join $dir $name.$where sources_1 bd $sa::bd hw_handoff $sa::bd.hwh]
    sa::produce $hwh [sa::hwh_text]
    dict set sa::project generated 1
    return ""
}

proc sa::hwh_text {} {
    set lines [list "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" \
        "<EDKSYSTEM EDWVERSION=\"1.2\" TIMESTAMP=\"stand-in\" VIVADOVERSION=\"[sa::opt vivado-version]\">" "  <MODULES>"]
    foreach cell [lsort [dict keys $sa::cells]] {
        set c [dict get $sa::cells $cell]
        lappend lines "    <MODULE INSTANCE=\"$cell\" VLNV=\"[dict get $c vlnv]\">" "      <PARAMETERS>"
        foreach p [lsort [dict keys [dict get $c props]]] {
            lappend lines "        <PARAMETER NAME=\"$p\" VALUE=\"[sa::xml_escape [dict get $c props $p]]\"/>"
        }
        lappend lines "      </PARAMETERS>" "      <MEMORYMAP>"
        foreach key [lsort [dict keys $sa::assigned]] {
            lassign [split $key |] space seg
            if {[string match /$cell/* $space]} {
                set a [dict get $sa::assigned $key]
                lappend lines "        <MEMRANGE ADDRESSBLOCK=\"$seg\" BASEVALUE=\"[sa::hex [dict get $a offset]]\" HIGHVALUE=\"[sa::hex [expr {[dict get $a offset] + [dict get $a range] - 1}]]\" MASTERBUSINTERFACE=\"$space\"/>"
            }
        }
        lappend lines "      </MEMORYMAP>" "    </MODULE>"
    }
    lappend lines "  </MODULES>" "</EDKSYSTEM>"
    return [join $lines \n]
}

proc make_wrapper {args} {
    sa::record make_wrapper {*}$args
    sa::need_bd make_wrapper
    lassign [sa::parse_args make_wrapper {-files 1 -top 0 -import 0 -force 0 -fileset 1} $args] o pos
    sa::bd_file_arg make_wrapper [list [dict get $o -files]]
    if {![dict get $sa::project generated]} {
        sa::fail "make_wrapper: generate the output products of $sa::bd first (generate_target all)"
    }
    set dir [dict get $sa::project dir]
    set name [dict get $sa::project name]
    set where [expr {[sa::version_at_least 2020.2] ? "gen" : "srcs"}]
    set wrapper [file join $dir $name.$where sources_1 bd $sa::bd hdl ${sa::bd}_wrapper.v]
    sa::produce $wrapper "module ${sa::bd}_wrapper ();\nendmodule"
    if {[dict exists $o -import]} {
        set imported [file join $dir $name.srcs sources_1 imports hdl ${sa::bd}_wrapper.v]
        sa::produce $imported "module ${sa::bd}_wrapper ();\nendmodule"
        set wrapper $imported
        dict lappend sa::project files $wrapper
    }
    dict set sa::project wrapper ${sa::bd}_wrapper
    return $wrapper
}

proc add_files {args} {
    sa::record add_files {*}$args
    sa::need_project add_files
    lassign [sa::parse_args add_files {-norecurse 0 -fileset 1 -scan_for_includes 0 -quiet 0} $args] o pos
    foreach f [concat {*}$pos] {
        if {![file exists $f]} {
            sa::fail "add_files: $f does not exist"
        }
        dict lappend sa::project files [file normalize $f]
    }
    return ""
}

proc update_compile_order {args} {
    sa::record update_compile_order {*}$args
    sa::need_project update_compile_order
    return ""
}

proc get_runs {args} {
    sa::record get_runs {*}$args
    sa::need_project get_runs
    foreach r $args {
        if {$r ni {synth_1 impl_1}} {
            sa::fail "get_runs: no run $r"
        }
        if {![info exists sa::runs($r)]} {
            sa::fail "get_runs $r: the run was never launched"
        }
    }
    return $args
}

proc launch_runs {args} {
    sa::record launch_runs {*}$args
    sa::need_project launch_runs
    lassign [sa::parse_args launch_runs {-jobs 1 -to_step 1 -quiet 0} $args] o pos
    set top [dict get $sa::project top]
    if {$top eq "" || $top ne [dict get $sa::project wrapper]} {
        sa::fail "launch_runs: the top module '$top' is not the block design's wrapper ([dict get $sa::project wrapper]); make_wrapper and set_property top first"
    }
    set dir [dict get $sa::project dir]
    set name [dict get $sa::project name]
    foreach run $pos {
        if {$run ni {synth_1 impl_1}} {
            sa::fail "launch_runs: no run $run"
        }
        if {$run eq "impl_1" && ![info exists sa::runs(synth_1)]} {
            set sa::runs(synth_1) [dict create progress 0% status "Running" dir [file join $dir $name.runs synth_1] step {} waited 0]
        }
        set step ""
        if {[dict exists $o -to_step]} {
            set step [dict get $o -to_step]
            if {$run ne "impl_1" || $step ni {write_bitstream route_design place_design opt_design}} {
                sa::fail "launch_runs $run -to_step $step is not modelled"
            }
        }
        set sa::runs($run) [dict create progress 0% status "Running" dir [file join $dir $name.runs $run] step $step waited 0]
    }
    return ""
}

proc wait_on_run {args} {
    sa::record wait_on_run {*}$args
    lassign [sa::parse_args wait_on_run {-timeout 1 -quiet 0} $args] o pos
    foreach run $pos {
        if {![info exists sa::runs($run)]} {
            sa::fail "wait_on_run: run $run was never launched"
        }
        set r $sa::runs($run)
        set rdir [dict get $r dir]
        set top [dict get $sa::project top]
        file mkdir $rdir
        if {[sa::opt fail-run] eq $run} {
            sa::produce [file join $rdir runme.log] "ERROR: stand-in failure of $run"
            dict set r progress 0%
            dict set r status "$run failed"
        } elseif {$run eq "synth_1"} {
            sa::produce [file join $rdir runme.log] "synth_design completed successfully"
            dict set r progress 100%
            dict set r status "synth_design Complete!"
        } else {
            set synth $sa::runs(synth_1)
            if {[dict get $synth progress] ne "100%"} {
                if {[sa::opt fail-run] eq "synth_1"} {
                    dict set r progress 0%
                    dict set r status "synth_1 failed"
                    set sa::runs($run) $r
                    continue
                }
                dict set synth progress 100%
                dict set synth status "synth_design Complete!"
                set sa::runs(synth_1) $synth
            }
            sa::produce [file join $rdir runme.log] "route_design completed successfully"
            set met [expr {[sa::opt timing] eq "met"}]
            sa::produce [file join $rdir ${top}_timing_summary_routed.rpt] [expr {$met ?
                "Timing Summary (stand-in)\n\nAll user specified timing constraints are met." :
                "Timing Summary (stand-in)\n\nTiming constraints are not met."}]
            sa::produce [file join $rdir ${top}_utilization_placed.rpt] "Utilization (stand-in)"
            if {[dict get $r step] eq "write_bitstream"} {
                sa::produce [file join $rdir $top.bit] "stand-in bitstream of $top"
                dict set r status "write_bitstream Complete!"
            } else {
                dict set r status "route_design Complete!"
            }
            dict set r progress 100%
        }
        dict set r waited 1
        set sa::runs($run) $r
    }
    return ""
}

# ============================================================================ ipx (IP packager)

namespace eval ipx {}

# Logical ports of the modelled interfaces, with the direction a *master* drives them.
proc sa::abstraction_ports {abstraction} {
    switch -- $abstraction {
        xilinx.com:interface:aximm_rtl:1.0 {
            return {
                AWID out AWADDR out AWLEN out AWSIZE out AWBURST out AWLOCK out AWCACHE out AWPROT out
                AWQOS out AWREGION out AWUSER out AWVALID out AWREADY in
                WID out WDATA out WSTRB out WLAST out WUSER out WVALID out WREADY in
                BID in BRESP in BUSER in BVALID in BREADY out
                ARID out ARADDR out ARLEN out ARSIZE out ARBURST out ARLOCK out ARCACHE out ARPROT out
                ARQOS out ARREGION out ARUSER out ARVALID out ARREADY in
                RID in RDATA in RRESP in RLAST in RUSER in RVALID in RREADY out
            }
        }
        xilinx.com:interface:axis_rtl:1.0 {
            return {TDATA out TVALID out TREADY in TLAST out TKEEP out TSTRB out TUSER out TID out TDEST out}
        }
        xilinx.com:signal:clock_rtl:1.0 {return {CLK out}}
        xilinx.com:signal:reset_rtl:1.0 {return {RST out}}
        xilinx.com:signal:interrupt_rtl:1.0 {return {INTERRUPT out}}
    }
    return ""
}

proc sa::bus_of_abstraction {abstraction} {
    return [dict get {
        xilinx.com:interface:aximm_rtl:1.0 xilinx.com:interface:aximm:1.0
        xilinx.com:interface:axis_rtl:1.0 xilinx.com:interface:axis:1.0
        xilinx.com:signal:clock_rtl:1.0 xilinx.com:signal:clock:1.0
        xilinx.com:signal:reset_rtl:1.0 xilinx.com:signal:reset:1.0
        xilinx.com:signal:interrupt_rtl:1.0 xilinx.com:signal:interrupt:1.0
    } $abstraction]
}

proc sa::core {} {
    if {$sa::current_core eq ""} {
        sa::fail "ipx: no current core (ipx::package_project first)"
    }
    return [dict get $sa::cores $sa::current_core]
}

proc sa::core_set {key value} {
    dict set sa::cores $sa::current_core $key $value
}

proc sa::core_obj {obj} {
    if {![regexp {^ipx:(\d+):(.*)$} $obj -> id rest]} {
        sa::fail "ipx: '$obj' is not an ipx object"
    }
    if {$id ne $sa::current_core} {
        sa::fail "ipx: $obj belongs to a core that is no longer current"
    }
    return [split $rest :]
}

proc ipx::package_project {args} {
    sa::record ipx::package_project {*}$args
    sa::need_project ipx::package_project
    lassign [sa::parse_args ipx::package_project {-root_dir 1 -vendor 1 -library 1 -taxonomy 1 \
        -import_files 0 -set_current 1 -force 0 -module 1} $args] o pos
    set top [dict get $sa::project top]
    if {$top eq ""} {
        sa::fail "ipx::package_project: the project has no top module (set_property top ... \[current_fileset\])"
    }
    set files [dict get $sa::project files]
    set ports [sa::verilog_ports $files $top]
    set root [file normalize [dict get $o -root_dir]]
    file mkdir $root
    set imported {}
    if {[dict exists $o -import_files]} {
        file mkdir [file join $root src]
        foreach f $files {
            file copy -force $f [file join $root src [file tail $f]]
            lappend imported src/[file tail $f]
        }
    } else {
        set imported $files
    }
    # what package_project infers from the port names
    set busifs [dict create]
    foreach {name p} $ports {
        if {[regexp {^(.*)_(AW|AR)ADDR$} $name -> prefix]} {
            set mode [expr {[dict get $p dir] eq "out" ? "master" : "slave"}]
            set maps [dict create]
            foreach {pn pp} $ports {
                if {[regexp "^${prefix}_(\[A-Z\]+)\$" $pn -> logical]} {
                    dict set maps $logical $pn
                }
            }
            dict set busifs $prefix [dict create abstraction xilinx.com:interface:aximm_rtl:1.0 \
                bus xilinx.com:interface:aximm:1.0 mode $mode portmaps $maps params {} mmref {} asref {}]
        } elseif {[dict get $p dir] eq "in" && [string match -nocase *clk* $name]} {
            dict set busifs $name [dict create abstraction xilinx.com:signal:clock_rtl:1.0 \
                bus xilinx.com:signal:clock:1.0 mode slave portmaps [dict create CLK $name] params {} mmref {} asref {}]
        } elseif {[dict get $p dir] eq "in" && [regexp -nocase {rst|reset} $name]} {
            dict set busifs $name [dict create abstraction xilinx.com:signal:reset_rtl:1.0 \
                bus xilinx.com:signal:reset:1.0 mode slave portmaps [dict create RST $name] params {} mmref {} asref {}]
        } elseif {[dict get $p dir] eq "out" && [string match -nocase *interrupt* $name]} {
            dict set busifs $name [dict create abstraction xilinx.com:signal:interrupt_rtl:1.0 \
                bus xilinx.com:signal:interrupt:1.0 mode master portmaps [dict create INTERRUPT $name] params {} mmref {} asref {}]
        }
    }
    incr sa::core_id
    dict set sa::cores $sa::core_id [dict create vendor [dict get $o -vendor] library [dict get $o -library] \
        name $top version 1.0 root $root top $top ports $ports files $imported busifs $busifs \
        memmaps [dict create] spaces [dict create] props [dict create] checked 0]
    set sa::current_core $sa::core_id
    return ipx:$sa::core_id:core
}

proc ipx::current_core {args} {
    sa::record ipx::current_core {*}$args
    sa::core
    return ipx:$sa::current_core:core
}

proc sa::need_core_arg {cmd obj} {
    if {[sa::core_obj $obj] ne "core"} {
        sa::fail "$cmd: $obj is not a core"
    }
}

proc ipx::add_bus_interface {name core} {
    sa::record ipx::add_bus_interface $name $core
    sa::need_core_arg ipx::add_bus_interface $core
    set c [sa::core]
    if {[dict exists $c busifs $name]} {
        sa::fail "ipx::add_bus_interface: bus interface $name already exists (remove the inferred one first)"
    }
    dict set c busifs $name [dict create abstraction {} bus {} mode {} portmaps {} params {} mmref {} asref {}]
    dict set sa::cores $sa::current_core $c
    return ipx:$sa::current_core:busif:$name
}

proc ipx::add_port_map {logical busif} {
    sa::record ipx::add_port_map $logical $busif
    lassign [sa::core_obj $busif] kind name
    if {$kind ne "busif"} {
        sa::fail "ipx::add_port_map: $busif is not a bus interface"
    }
    set c [sa::core]
    if {[dict exists $c busifs $name portmaps $logical]} {
        sa::fail "ipx::add_port_map: $logical is already mapped in $name"
    }
    dict set sa::cores $sa::current_core busifs $name portmaps $logical {}
    return ipx:$sa::current_core:portmap:$name:$logical
}

proc ipx::add_bus_parameter {param busif} {
    sa::record ipx::add_bus_parameter $param $busif
    lassign [sa::core_obj $busif] kind name
    if {$kind ne "busif"} {
        sa::fail "ipx::add_bus_parameter: $busif is not a bus interface"
    }
    if {$param ni {ASSOCIATED_BUSIF ASSOCIATED_RESET ASSOCIATED_PORT FREQ_HZ POLARITY SENSITIVITY
            PROTOCOL DATA_WIDTH ADDR_WIDTH}} {
        sa::fail "ipx::add_bus_parameter: bus parameter $param is not modelled"
    }
    dict set sa::cores $sa::current_core busifs $name params $param {}
    return ipx:$sa::current_core:busparam:$name:$param
}

proc ipx::add_memory_map {name core} {
    sa::record ipx::add_memory_map $name $core
    sa::need_core_arg ipx::add_memory_map $core
    if {[dict exists [sa::core] memmaps $name]} {
        sa::fail "ipx::add_memory_map: memory map $name already exists"
    }
    dict set sa::cores $sa::current_core memmaps $name [dict create]
    return ipx:$sa::current_core:memmap:$name
}

proc ipx::add_address_block {name memmap} {
    sa::record ipx::add_address_block $name $memmap
    lassign [sa::core_obj $memmap] kind mm
    if {$kind ne "memmap"} {
        sa::fail "ipx::add_address_block: $memmap is not a memory map"
    }
    dict set sa::cores $sa::current_core memmaps $mm $name [dict create base_address 0 range {} width 32 usage memory]
    return ipx:$sa::current_core:block:$mm:$name
}

proc ipx::add_address_space {name core} {
    sa::record ipx::add_address_space $name $core
    sa::need_core_arg ipx::add_address_space $core
    dict set sa::cores $sa::current_core spaces $name [dict create range {} width {}]
    return ipx:$sa::current_core:space:$name
}

proc sa::ipx_getter {cmd kind args} {
    lassign [sa::parse_args $cmd {-of_objects 1 -quiet 0} $args] o pos
    set of [dict get $o -of_objects]
    set c [sa::core]
    lassign [sa::core_obj $of] okind oname
    switch -- $kind {
        busif {set names [dict keys [dict get $c busifs]]; set base busif}
        portmap {set names [dict keys [dict get $c busifs $oname portmaps]]; set base portmap:$oname}
        busparam {set names [dict keys [dict get $c busifs $oname params]]; set base busparam:$oname}
        memmap {set names [dict keys [dict get $c memmaps]]; set base memmap}
        block {set names [dict keys [dict get $c memmaps $oname]]; set base block:$oname}
        space {set names [dict keys [dict get $c spaces]]; set base space}
    }
    set out {}
    foreach n $names {
        if {[llength $pos] == 0 || $n in $pos} {
            lappend out ipx:$sa::current_core:$base:$n
        }
    }
    if {[llength $pos] > 0 && [llength $out] == 0 && ![dict exists $o -quiet]} {
        sa::fail "$cmd: no [join $pos] of $of"
    }
    return $out
}

proc ipx::get_bus_interfaces {args} {sa::ipx_getter ipx::get_bus_interfaces busif {*}$args}
proc ipx::get_port_maps {args} {sa::ipx_getter ipx::get_port_maps portmap {*}$args}
proc ipx::get_bus_parameters {args} {sa::ipx_getter ipx::get_bus_parameters busparam {*}$args}
proc ipx::get_memory_maps {args} {sa::ipx_getter ipx::get_memory_maps memmap {*}$args}
proc ipx::get_address_blocks {args} {sa::ipx_getter ipx::get_address_blocks block {*}$args}
proc ipx::get_address_spaces {args} {sa::ipx_getter ipx::get_address_spaces space {*}$args}

proc ipx::remove_all_bus_interface {core} {
    sa::record ipx::remove_all_bus_interface $core
    sa::need_core_arg ipx::remove_all_bus_interface $core
    sa::core_set busifs [dict create]
}

proc ipx::remove_all_memory_map {core} {
    sa::record ipx::remove_all_memory_map $core
    sa::need_core_arg ipx::remove_all_memory_map $core
    sa::core_set memmaps [dict create]
}

proc ipx::remove_all_address_space {core} {
    sa::record ipx::remove_all_address_space $core
    sa::need_core_arg ipx::remove_all_address_space $core
    sa::core_set spaces [dict create]
}

proc ipx::create_xgui_files {core} {
    sa::record ipx::create_xgui_files $core
    sa::need_core_arg ipx::create_xgui_files $core
}

proc ipx::update_checksums {core} {
    sa::record ipx::update_checksums $core
    sa::need_core_arg ipx::update_checksums $core
}

proc sa::ipx_set {obj prop value} {
    set parts [sa::core_obj $obj]
    set kind [lindex $parts 0]
    set prop [string tolower $prop]
    set id $sa::current_core
    switch -- $kind {
        core {
            if {$prop ni {name version vendor library display_name description taxonomy supported_families
                    core_revision vendor_display_name company_url}} {
                sa::fail "set_property $prop on the IP core is not modelled"
            }
            if {$prop in {name version vendor library}} {
                dict set sa::cores $id $prop $value
            } else {
                dict set sa::cores $id props $prop $value
            }
        }
        busif {
            set name [lindex $parts 1]
            switch -- $prop {
                abstraction_type_vlnv {
                    if {[sa::abstraction_ports $value] eq ""} {
                        sa::fail "bus interface $name: abstraction $value is not modelled"
                    }
                    dict set sa::cores $id busifs $name abstraction $value
                }
                bus_type_vlnv {dict set sa::cores $id busifs $name bus $value}
                interface_mode {
                    if {$value ni {master slave}} {
                        sa::fail "bus interface $name: interface_mode $value is not modelled (master, slave)"
                    }
                    dict set sa::cores $id busifs $name mode $value
                }
                slave_memory_map_ref {dict set sa::cores $id busifs $name mmref $value}
                master_address_space_ref {dict set sa::cores $id busifs $name asref $value}
                display_name - description {}
                default {sa::fail "set_property $prop on bus interface $name is not modelled"}
            }
        }
        portmap {
            lassign $parts _ busif logical
            if {$prop ne "physical_name"} {
                sa::fail "set_property $prop on port map $busif/$logical is not modelled"
            }
            set c [sa::core]
            if {![dict exists $c ports $value]} {
                sa::fail "port map $busif/$logical: $value is not a port of module [dict get $c top] (ports: [join [lsort [dict keys [dict get $c ports]]] {, }])"
            }
            dict set sa::cores $id busifs $busif portmaps $logical $value
        }
        busparam {
            lassign $parts _ busif param
            if {$prop ne "value"} {
                sa::fail "set_property $prop on bus parameter $busif/$param is not modelled"
            }
            dict set sa::cores $id busifs $busif params $param $value
        }
        block {
            lassign $parts _ mm block
            if {$prop ni {base_address range width usage access}} {
                sa::fail "set_property $prop on address block $mm/$block is not modelled"
            }
            if {$prop eq "range"} {
                set value [sa::size $value]
            }
            dict set sa::cores $id memmaps $mm $block $prop $value
        }
        space {
            set name [lindex $parts 1]
            if {$prop ni {range width}} {
                sa::fail "set_property $prop on address space $name is not modelled"
            }
            if {$prop eq "range"} {
                set value [sa::size $value]
            }
            dict set sa::cores $id spaces $name $prop $value
        }
        default {
            sa::fail "set_property $prop on $obj is not modelled"
        }
    }
    dict set sa::cores $id checked 0
}

proc sa::ipx_get {obj prop} {
    set parts [sa::core_obj $obj]
    set c [sa::core]
    switch -- [lindex $parts 0] {
        core {
            set prop [string tolower $prop]
            if {[dict exists $c $prop]} {
                return [dict get $c $prop]
            }
        }
        busif {
            set b [dict get $c busifs [lindex $parts 1]]
            set key [dict get {abstraction_type_vlnv abstraction bus_type_vlnv bus interface_mode mode
                slave_memory_map_ref mmref master_address_space_ref asref} [string tolower $prop]]
            return [dict get $b $key]
        }
    }
    sa::fail "get_property $prop of $obj is not modelled"
}

# What Vivado's IP packager and IP integrator need from a core, checked like ipx::check_integrity
# does and beyond: every port in exactly one interface, directions matching the mode, the
# register block as large as the control address decodes.
proc ipx::check_integrity {core} {
    sa::record ipx::check_integrity $core
    sa::need_core_arg ipx::check_integrity $core
    set c [sa::core]
    set problems {}
    set mapped [dict create]
    dict for {name b} [dict get $c busifs] {
        set abstraction [dict get $b abstraction]
        if {$abstraction eq ""} {
            lappend problems "bus interface $name has no abstraction_type_vlnv"
            continue
        }
        if {[dict get $b bus] ne [sa::bus_of_abstraction $abstraction]} {
            lappend problems "bus interface $name: bus_type_vlnv '[dict get $b bus]' does not go with $abstraction"
        }
        set mode [dict get $b mode]
        if {$mode eq ""} {
            lappend problems "bus interface $name has no interface_mode"
            continue
        }
        set logical [sa::abstraction_ports $abstraction]
        dict for {l phys} [dict get $b portmaps] {
            if {![dict exists $logical $l]} {
                lappend problems "bus interface $name: $l is not a port of $abstraction"
                continue
            }
            if {$phys eq ""} {
                lappend problems "bus interface $name: port map $l has no physical_name"
                continue
            }
            if {[dict exists $mapped $phys]} {
                lappend problems "port $phys is mapped twice ([dict get $mapped $phys] and $name/$l)"
            }
            dict set mapped $phys $name/$l
            set want [dict get $logical $l]
            if {$mode eq "slave"} {
                set want [dict get {out in in out} $want]
            }
            set have [dict get $c ports $phys dir]
            if {$have ne $want} {
                lappend problems "bus interface $name ($mode): $l maps $phys, an ${have}put; a $mode drives it as ${want}put"
            }
        }
        set required [dict get {
            xilinx.com:interface:aximm_rtl:1.0 {AWADDR AWVALID AWREADY WDATA WSTRB WVALID WREADY BRESP BVALID BREADY
                ARADDR ARVALID ARREADY RDATA RRESP RVALID RREADY}
            xilinx.com:interface:axis_rtl:1.0 TVALID
            xilinx.com:signal:clock_rtl:1.0 CLK xilinx.com:signal:reset_rtl:1.0 RST
            xilinx.com:signal:interrupt_rtl:1.0 INTERRUPT} $abstraction]
        foreach l $required {
            if {![dict exists $b portmaps $l]} {
                lappend problems "bus interface $name: $l is not mapped"
            }
        }
        switch -- $abstraction {
            xilinx.com:interface:aximm_rtl:1.0 {
                if {$mode eq "slave"} {
                    set mm [dict get $b mmref]
                    if {$mm eq "" || ![dict exists $c memmaps $mm]} {
                        lappend problems "AXI slave $name has no memory map (slave_memory_map_ref '$mm')"
                    } elseif {[dict size [dict get $c memmaps $mm]] == 0} {
                        lappend problems "memory map $mm of $name has no address block"
                    } elseif {[dict exists $b portmaps AWADDR]} {
                        set aw [dict get $c ports [dict get $b portmaps AWADDR] width]
                        dict for {blk bi} [dict get $c memmaps $mm] {
                            set range [dict get $bi range]
                            if {$range eq "" || ![sa::is_pow2 $range]} {
                                lappend problems "address block $mm/$blk: range '$range' is not a power of two"
                            } elseif {$range != (1 << $aw)} {
                                lappend problems "address block $mm/$blk: range $range bytes, but $name decodes [expr {1 << $aw}] ([dict get $b portmaps AWADDR] is $aw bits)"
                            }
                        }
                    }
                } else {
                    set as [dict get $b asref]
                    if {$as eq "" || ![dict exists $c spaces $as]} {
                        lappend problems "AXI master $name has no address space (master_address_space_ref '$as')"
                    } elseif {[dict exists $b portmaps AWADDR]} {
                        set aw [dict get $c ports [dict get $b portmaps AWADDR] width]
                        set width [dict get $c spaces $as width]
                        if {$width eq "" || $width < $aw} {
                            lappend problems "address space $as: width '$width' is narrower than $name's $aw address bits"
                        }
                    }
                }
            }
            xilinx.com:signal:clock_rtl:1.0 {
                if {![dict exists $b params ASSOCIATED_BUSIF]} {
                    lappend problems "clock $name has no ASSOCIATED_BUSIF"
                } else {
                    foreach assoc [split [dict get $b params ASSOCIATED_BUSIF] :] {
                        if {![dict exists $c busifs $assoc]} {
                            lappend problems "clock $name: ASSOCIATED_BUSIF names $assoc, which is no bus interface"
                        }
                    }
                }
                if {[dict exists $b params ASSOCIATED_RESET]} {
                    set found 0
                    dict for {rn rb} [dict get $c busifs] {
                        if {[dict get $rb abstraction] eq "xilinx.com:signal:reset_rtl:1.0"
                            && [dict exists $rb portmaps RST] && [dict get $rb portmaps RST] eq [dict get $b params ASSOCIATED_RESET]} {
                            set found 1
                        }
                    }
                    if {!$found} {
                        lappend problems "clock $name: ASSOCIATED_RESET [dict get $b params ASSOCIATED_RESET] is no reset interface's port"
                    }
                }
            }
            xilinx.com:signal:reset_rtl:1.0 {
                if {![dict exists $b params POLARITY] || [dict get $b params POLARITY] ni {ACTIVE_LOW ACTIVE_HIGH}} {
                    lappend problems "reset $name has no POLARITY (ACTIVE_LOW or ACTIVE_HIGH)"
                }
            }
            xilinx.com:signal:interrupt_rtl:1.0 {
                if {![dict exists $b params SENSITIVITY]} {
                    lappend problems "interrupt $name has no SENSITIVITY"
                }
            }
        }
    }
    # every AXI interface on a clock
    dict for {name b} [dict get $c busifs] {
        if {[dict get $b abstraction] ni {xilinx.com:interface:aximm_rtl:1.0 xilinx.com:interface:axis_rtl:1.0}} {
            continue
        }
        set clocked 0
        dict for {cn cb} [dict get $c busifs] {
            if {[dict exists $cb params ASSOCIATED_BUSIF] && $name in [split [dict get $cb params ASSOCIATED_BUSIF] :]} {
                set clocked 1
            }
        }
        if {!$clocked} {
            lappend problems "AXI interface $name is associated with no clock (ASSOCIATED_BUSIF)"
        }
    }
    foreach p [lsort [dict keys [dict get $c ports]]] {
        if {![dict exists $mapped $p]} {
            lappend problems "port $p of [dict get $c top] belongs to no bus interface"
        }
    }
    if {[llength $problems] > 0} {
        sa::fail "ipx::check_integrity [dict get $c name]: [llength $problems] problem(s):\n  [join $problems "\n  "]"
    }
    dict set sa::cores $sa::current_core checked 1
    return ""
}

proc sa::component_xml {c} {
    set x [list {<?xml version="1.0" encoding="UTF-8"?>} \
        {<spirit:component xmlns:xilinx="http://www.xilinx.com" xmlns:spirit="http://www.spiritconsortium.org/XMLSchema/SPIRIT/1685-2009">}]
    foreach k {vendor library name version} {
        lappend x "  <spirit:$k>[sa::xml_escape [dict get $c $k]]</spirit:$k>"
    }
    lappend x "  <spirit:busInterfaces>"
    dict for {name b} [dict get $c busifs] {
        lappend x "    <spirit:busInterface>" "      <spirit:name>$name</spirit:name>"
        foreach {tag v} [list busType [dict get $b bus] abstractionType [dict get $b abstraction]] {
            lassign [split $v :] vendor library n version
            lappend x "      <spirit:$tag spirit:vendor=\"$vendor\" spirit:library=\"$library\" spirit:name=\"$n\" spirit:version=\"$version\"/>"
        }
        if {[dict get $b mode] eq "slave"} {
            if {[dict get $b mmref] ne ""} {
                lappend x "      <spirit:slave>" "        <spirit:memoryMapRef spirit:memoryMapRef=\"[dict get $b mmref]\"/>" "      </spirit:slave>"
            } else {
                lappend x "      <spirit:slave/>"
            }
        } elseif {[dict get $b asref] ne ""} {
            lappend x "      <spirit:master>" "        <spirit:addressSpaceRef spirit:addressSpaceRef=\"[dict get $b asref]\"/>" "      </spirit:master>"
        } else {
            lappend x "      <spirit:master/>"
        }
        lappend x "      <spirit:portMaps>"
        dict for {l phys} [dict get $b portmaps] {
            lappend x "        <spirit:portMap>" \
                "          <spirit:logicalPort>" "            <spirit:name>$l</spirit:name>" "          </spirit:logicalPort>" \
                "          <spirit:physicalPort>" "            <spirit:name>$phys</spirit:name>" "          </spirit:physicalPort>" \
                "        </spirit:portMap>"
        }
        lappend x "      </spirit:portMaps>"
        if {[dict size [dict get $b params]] > 0} {
            lappend x "      <spirit:parameters>"
            dict for {pn pv} [dict get $b params] {
                lappend x "        <spirit:parameter>" "          <spirit:name>$pn</spirit:name>" \
                    "          <spirit:value>[sa::xml_escape $pv]</spirit:value>" "        </spirit:parameter>"
            }
            lappend x "      </spirit:parameters>"
        }
        lappend x "    </spirit:busInterface>"
    }
    lappend x "  </spirit:busInterfaces>"
    if {[dict size [dict get $c spaces]] > 0} {
        lappend x "  <spirit:addressSpaces>"
        dict for {n s} [dict get $c spaces] {
            lappend x "    <spirit:addressSpace>" "      <spirit:name>$n</spirit:name>" \
                "      <spirit:range>[dict get $s range]</spirit:range>" "      <spirit:width>[dict get $s width]</spirit:width>" \
                "    </spirit:addressSpace>"
        }
        lappend x "  </spirit:addressSpaces>"
    }
    if {[dict size [dict get $c memmaps]] > 0} {
        lappend x "  <spirit:memoryMaps>"
        dict for {n blocks} [dict get $c memmaps] {
            lappend x "    <spirit:memoryMap>" "      <spirit:name>$n</spirit:name>"
            dict for {bn bi} $blocks {
                lappend x "      <spirit:addressBlock>" "        <spirit:name>$bn</spirit:name>" \
                    "        <spirit:baseAddress>[dict get $bi base_address]</spirit:baseAddress>" \
                    "        <spirit:range>[dict get $bi range]</spirit:range>" \
                    "        <spirit:width>[dict get $bi width]</spirit:width>" \
                    "        <spirit:usage>[dict get $bi usage]</spirit:usage>" "      </spirit:addressBlock>"
            }
            lappend x "    </spirit:memoryMap>"
        }
        lappend x "  </spirit:memoryMaps>"
    }
    lappend x "  <spirit:model>" "    <spirit:ports>"
    dict for {n p} [dict get $c ports] {
        lappend x "      <spirit:port>" "        <spirit:name>$n</spirit:name>" "        <spirit:wire>" \
            "          <spirit:direction>[dict get $p dir]</spirit:direction>"
        if {[dict get $p width] > 1} {
            lappend x "          <spirit:vector>" "            <spirit:left spirit:format=\"long\">[expr {[dict get $p width] - 1}]</spirit:left>" \
                "            <spirit:right spirit:format=\"long\">0</spirit:right>" "          </spirit:vector>"
        }
        lappend x "        </spirit:wire>" "      </spirit:port>"
    }
    lappend x "    </spirit:ports>" "  </spirit:model>" "  <spirit:fileSets>" "    <spirit:fileSet>" \
        "      <spirit:name>xilinx_anylanguagesynthesis_view_fileset</spirit:name>"
    foreach f [dict get $c files] {
        lappend x "      <spirit:file>" "        <spirit:name>$f</spirit:name>" \
            "        <spirit:fileType>verilogSource</spirit:fileType>" "      </spirit:file>"
    }
    lappend x "    </spirit:fileSet>" "  </spirit:fileSets>" "</spirit:component>"
    return [join $x \n]
}

proc ipx::save_core {core} {
    sa::record ipx::save_core $core
    sa::need_core_arg ipx::save_core $core
    set c [sa::core]
    if {![dict get $c checked]} {
        ipx::check_integrity $core
        set c [sa::core]
    }
    set path [file join [dict get $c root] component.xml]
    set fh [open $path w]
    puts $fh [sa::component_xml $c]
    close $fh
    lappend sa::produced [file normalize $path]
    return ""
}

# The IP Vitis HLS exports for a top function with m_axi offset=slave arrays (bundle gmem),
# s_axilite scalars and control (bundle control): DESIGN.md §4 and the HLS-generated RTL
# ports (ap_clk, ap_rst_n, s_axi_control_*, m_axi_gmem_*, interrupt). Options: -no-gmem (no
# m_axi array, so no m_axi_gmem) and NAME:in / NAME:out, an `hls::stream<uint64_t>` argument
# with `INTERFACE mode=axis`: interface NAME, ports NAME_TDATA (64 bits), NAME_TVALID,
# NAME_TREADY, without TLAST/TKEEP/TSTRB (a plain stream type has no side channels:
# UG1399 "How AXI4-Stream is Implemented"), clocked by ap_clk.
proc sa::export_hls_ip {dir top reg_range args} {
    set aw 0
    while {(1 << $aw) < $reg_range} {
        incr aw
    }
    set gmem 1
    set streams [dict create]
    foreach a $args {
        if {$a eq "-no-gmem"} {
            set gmem 0
        } elseif {[regexp {^([A-Za-z_][A-Za-z0-9_]*):(in|out)$} $a -> name d]} {
            if {[dict exists $streams $name] || $name in {s_axi_control m_axi_gmem ap_clk ap_rst_n interrupt}} {
                puts stderr "standin.tcl: -export-hls-ip: stream $name given twice or clashing with a kernel interface"
                sa::tcl_exit 2
            }
            dict set streams $name $d
        } else {
            puts stderr "standin.tcl: -export-hls-ip: '$a' is neither -no-gmem nor NAME:in / NAME:out"
            sa::tcl_exit 2
        }
    }
    set ports [dict create ap_clk {dir in width 1} ap_rst_n {dir in width 1} interrupt {dir out width 1}]
    if {$gmem} {
        foreach {l d} [sa::abstraction_ports xilinx.com:interface:aximm_rtl:1.0] {
            set widths {AWADDR 64 ARADDR 64 WDATA 32 RDATA 32 WSTRB 4 AWLEN 8 ARLEN 8 AWSIZE 3 ARSIZE 3
                AWBURST 2 ARBURST 2 AWLOCK 2 ARLOCK 2 AWCACHE 4 ARCACHE 4 AWPROT 3 ARPROT 3 AWQOS 4 ARQOS 4
                AWREGION 4 ARREGION 4 BRESP 2 RRESP 2}
            set width [expr {[dict exists $widths $l] ? [dict get $widths $l] : 1}]
            dict set ports m_axi_gmem_$l [dict create dir $d width $width]
        }
    }
    foreach l {AWADDR AWVALID AWREADY WDATA WSTRB WVALID WREADY BRESP BVALID BREADY ARADDR ARVALID ARREADY
            RDATA RRESP RVALID RREADY} {
        set d [dict get [sa::abstraction_ports xilinx.com:interface:aximm_rtl:1.0] $l]
        set d [dict get {out in in out} $d]
        set width [expr {$l in {AWADDR ARADDR} ? $aw : ($l in {WDATA RDATA} ? 32 : ($l eq "WSTRB" ? 4 : ($l in {BRESP RRESP} ? 2 : 1)))}]
        dict set ports s_axi_control_$l [dict create dir $d width $width]
    }
    set ctrl_maps [dict create]
    set gmem_maps [dict create]
    dict for {p _} $ports {
        if {[regexp {^s_axi_control_(.*)$} $p -> l]} {
            dict set ctrl_maps $l $p
        } elseif {[regexp {^m_axi_gmem_(.*)$} $p -> l]} {
            dict set gmem_maps $l $p
        }
    }
    set clocked [list s_axi_control]
    set busifs [dict create \
        s_axi_control [dict create abstraction xilinx.com:interface:aximm_rtl:1.0 bus xilinx.com:interface:aximm:1.0 \
            mode slave portmaps $ctrl_maps params {} mmref s_axi_control asref {}]]
    set spaces [dict create]
    if {$gmem} {
        dict set busifs m_axi_gmem [dict create abstraction xilinx.com:interface:aximm_rtl:1.0 \
            bus xilinx.com:interface:aximm:1.0 mode master portmaps $gmem_maps params {} mmref {} asref Data_m_axi_gmem]
        dict set spaces Data_m_axi_gmem [dict create range [expr {1 << 64}] width 64]
        lappend clocked m_axi_gmem
    }
    dict for {name d} $streams {
        # a slave (in) receives TDATA/TVALID and drives TREADY; a master (out) the reverse
        set mode [expr {$d eq "in" ? "slave" : "master"}]
        set maps [dict create]
        foreach {l ld} {TDATA out TVALID out TREADY in} {
            set pd [expr {$mode eq "master" ? $ld : [dict get {out in in out} $ld]}]
            dict set ports ${name}_$l [dict create dir $pd width [expr {$l eq "TDATA" ? 64 : 1}]]
            dict set maps $l ${name}_$l
        }
        dict set busifs $name [dict create abstraction xilinx.com:interface:axis_rtl:1.0 \
            bus xilinx.com:interface:axis:1.0 mode $mode portmaps $maps params {} mmref {} asref {}]
        lappend clocked $name
    }
    dict set busifs ap_clk [dict create abstraction xilinx.com:signal:clock_rtl:1.0 bus xilinx.com:signal:clock:1.0 \
        mode slave portmaps {CLK ap_clk} params [list ASSOCIATED_BUSIF [join $clocked :] ASSOCIATED_RESET ap_rst_n] \
        mmref {} asref {}]
    dict set busifs ap_rst_n [dict create abstraction xilinx.com:signal:reset_rtl:1.0 bus xilinx.com:signal:reset:1.0 \
        mode slave portmaps {RST ap_rst_n} params {POLARITY ACTIVE_LOW} mmref {} asref {}]
    dict set busifs interrupt [dict create abstraction xilinx.com:signal:interrupt_rtl:1.0 \
        bus xilinx.com:signal:interrupt:1.0 mode master portmaps {INTERRUPT interrupt} params {SENSITIVITY LEVEL_HIGH} \
        mmref {} asref {}]
    set c [dict create vendor xilinx.com library hls name $top version 1.0 root $dir top $top ports $ports \
        files [list hdl/verilog/$top.v] busifs $busifs \
        memmaps [dict create s_axi_control [dict create Reg [dict create base_address 0 range $reg_range width 32 usage register]]] \
        spaces $spaces props {} checked 0]
    file mkdir $dir
    set fh [open [file join $dir component.xml] w]
    puts $fh [sa::component_xml $c]
    close $fh
}

# ============================================================================ the run

# `file copy` of a flow output must copy something the flow produced.
rename file sa::tcl_file
proc file {sub args} {
    if {$sub eq "copy"} {
        sa::record file copy {*}$args
        set a [lsearch -all -inline -not -exact $args -force]
        set a [lsearch -all -inline -not -exact $a --]
        lassign $a src dst
        set src [sa::tcl_file normalize $src]
        if {![sa::tcl_file exists $src]} {
            set outputs {}
            foreach p $sa::produced {
                lappend outputs [sa::rel $p]
            }
            sa::fail "file copy: [sa::rel $src] does not exist; the flow produced: [join $outputs {, }]"
        }
        if {$sa::project ne "" && [string match [dict get $sa::project dir]/* $src] && $src ni $sa::produced} {
            sa::fail "file copy: [sa::rel $src] is in the project folder but not an output of the flow"
        }
        lappend sa::copies [list $src [sa::tcl_file normalize $dst]]
    }
    return [uplevel 1 [list sa::tcl_file $sub {*}$args]]
}

proc sa::rel {path} {
    set cwd [pwd]
    if {[string match $cwd/* $path]} {
        return [string range $path [expr {[string length $cwd] + 1}] end]
    }
    return $path
}

rename exit sa::tcl_exit
proc exit {{code 0}} {
    return -code error -errorcode [list STANDIN_EXIT $code] "exit $code"
}

rename unknown sa::tcl_unknown
proc unknown {args} {
    sa::fail "command '[lindex $args 0]' is not modelled by the Vivado stand-in (a typo, or a command the flow should not need)"
}

proc sa::report {path} {
    set out {}
    foreach cell [lsort [dict keys $sa::cells]] {
        set c [dict get $sa::cells $cell]
        lappend out [list cell $cell [dict get $c vlnv]]
        foreach p [lsort [dict keys [dict get $c explicit]]] {
            lappend out [list prop $cell $p [dict get $c props $p]]
        }
    }
    foreach net [lsort [dict keys $sa::nets]] {
        lappend out [list net $net {*}[lsort [dict get $sa::nets $net]]]
    }
    dict for {a b} $sa::inet_of {
        if {[string compare $a $b] < 0} {
            lappend out [list intf $a $b]
        }
    }
    foreach key [lsort [dict keys $sa::assigned]] {
        lassign [split $key |] space seg
        set a [dict get $sa::assigned $key]
        lappend out [list addr $space $seg [sa::hex [dict get $a offset]] [dict get $a range]]
    }
    foreach key [lsort [dict keys $sa::excluded]] {
        lassign [split $key |] space seg
        lappend out [list exclude $space $seg]
    }
    foreach p [lsort [dict keys $sa::iports]] {
        lappend out [list port $p [dict get $sa::iports $p mode]]
    }
    if {$sa::project ne ""} {
        lappend out [list board_part [dict get $sa::project board_part]]
    }
    foreach p $sa::produced {
        lappend out [list produced [sa::rel $p]]
    }
    foreach c $sa::copies {
        lappend out [list copied [sa::rel [lindex $c 0]] [sa::rel [lindex $c 1]]]
    }
    set fh [open $path w]
    puts $fh [join $out \n]
    close $fh
}

proc sa::main {argv} {
    set script ""
    set tclargs {}
    for {set i 0} {$i < [llength $argv]} {incr i} {
        set a [lindex $argv $i]
        switch -- $a {
            -tclargs {
                set tclargs [lrange $argv [expr {$i + 1}] end]
                break
            }
            -expect-file {
                dict lappend sa::opts expect-file [lindex $argv [incr i]]
            }
            -export-hls-ip {
                set rest [lrange $argv [expr {$i + 1}] end]
                if {[llength $rest] < 3} {
                    puts stderr "usage: tclsh standin.tcl -export-hls-ip DIR TOP REG_RANGE ?-no-gmem? ?NAME:in|NAME:out ...?"
                    sa::tcl_exit 2
                }
                sa::export_hls_ip {*}$rest
                sa::tcl_exit 0
            }
            -vivado-version - -board-parts - -expect-ps-ref-mhz - -expect-pl-mhz - -timing - -fail-run - -report - -log {
                dict set sa::opts [string range $a 1 end] [lindex $argv [incr i]]
            }
            default {
                if {[string index $a 0] eq "-" || $script ne ""} {
                    puts stderr "standin.tcl: unknown argument $a"
                    sa::tcl_exit 2
                }
                set script $a
            }
        }
    }
    if {$script eq ""} {
        puts stderr "usage: tclsh standin.tcl ?options? SCRIPT.tcl ?-tclargs ARG ...?"
        sa::tcl_exit 2
    }
    set ::argv $tclargs
    set ::argc [llength $tclargs]
    set ::argv0 $script
    set code 0
    set rc [catch {uplevel #0 [list source $script]} msg opts]
    if {$rc == 1} {
        set ec [dict get $opts -errorcode]
        if {[lindex $ec 0] eq "STANDIN_EXIT"} {
            set code [lindex $ec 1]
        } elseif {[lindex $ec 0] ne "STANDIN_FAIL"} {
            lappend sa::failures "the script failed: $msg\n[dict get $opts -errorinfo]"
        }
    }
    if {$code == 0 && [llength $sa::failures] == 0} {
        foreach f [dict get $sa::opts expect-file] {
            if {![sa::tcl_file exists $f]} {
                lappend sa::failures "the script did not leave $f"
                continue
            }
            set src ""
            foreach c $sa::copies {
                if {[lindex $c 1] eq [sa::tcl_file normalize $f]} {
                    set src [lindex $c 0]
                }
            }
            if {$src ne "" && $src ni $sa::produced} {
                lappend sa::failures "$f was copied from [sa::rel $src], which the flow did not produce"
            }
        }
    }
    if {[sa::opt report] ne ""} {
        sa::report [sa::opt report]
    }
    if {[sa::opt log] ne ""} {
        set fh [open [sa::opt log] w]
        foreach entry $sa::log {
            puts $fh $entry
        }
        close $fh
    }
    if {[llength $sa::failures] > 0} {
        puts stderr "STANDIN FAIL: [lindex $sa::failures 0]"
        sa::tcl_exit 1
    }
    if {$code != 0} {
        puts stderr "STANDIN EXIT $code: the script exited with status $code"
        sa::tcl_exit $code
    }
    puts "STANDIN OK: $script ([llength $sa::log] Vivado commands)"
    sa::tcl_exit 0
}

sa::main $argv
