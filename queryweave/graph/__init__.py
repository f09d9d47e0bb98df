"""Graph wiring: state, runtime context (configuration) and the builder."""
