"""Cross-cutting modules every layer may use: errors, parameter checks, paths, seeded
randomness, provenance, durable writes, interrupts, budgets, strict JSON, Parquet bytes,
YAML, log4j settings and the Java runtime check. Nothing here imports the rest of the package."""
