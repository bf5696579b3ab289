"""Models of Pulsar components, one module per component (see each module's docstring)."""
