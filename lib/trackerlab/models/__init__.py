"""Models of Pulsar's message-tracking structures, one module per Java component.

Each module docstring names the Java class, its file in apache/pulsar and the version or PR
it follows. A model offers the same semantics two ways: a per-message API that mirrors
Pulsar's methods, and a bulk path over numpy chunks; tests keep them identical and check
both against a naive reference (a dict, a set or a heap).
"""
