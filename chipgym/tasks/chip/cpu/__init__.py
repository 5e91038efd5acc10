"""The ``cpu`` chip task: a small 32-bit load/store processor (see arch.xml and isa.xml)."""
