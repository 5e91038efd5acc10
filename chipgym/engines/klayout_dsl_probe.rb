# Prints the public DRC DSL methods of the running KLayout, one per line:
# "layer <name>" for DRCLayer methods and "engine <name>" for global functions.
# Usage: klayout -b -r klayout_dsl_probe.rb (chipgym.engines.klayout.probe_dsl_methods)
engine = DRC::DRCEngine::new
layer = engine.polygon_layer
base = Object.public_instance_methods
(layer.public_methods - base).sort.each { |m| puts "layer #{m}" unless m.to_s.start_with?("_") }
(engine.public_methods - base).sort.each { |m| puts "engine #{m}" unless m.to_s.start_with?("_") }
