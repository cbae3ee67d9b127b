"""partition: a HW/SW co-design partitioner for Zynq FPGA SoCs."""

__version__ = "0.1.0"
