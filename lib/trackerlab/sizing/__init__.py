"""Sizing layer: three columns that are never mixed.

- :mod:`~trackerlab.sizing.python`: **Python-real bytes** of the Python models (pympler, with
  CRoaring's C memory of pyroaring bitmaps counted);
- :mod:`~trackerlab.sizing.jvm` and the layout modules next to it
  (:mod:`~trackerlab.sizing.jvm_collections`, :mod:`~trackerlab.sizing.jvm_roaring`):
  **JVM-equivalent bytes** of the Java originals (64-bit HotSpot layout model, checked against
  a real JVM by :mod:`~trackerlab.sizing.jvm_probe` with the cases of
  :mod:`~trackerlab.sizing.jvm_cases`, ``trackerlab jvm-check``);
- :mod:`~trackerlab.sizing.theory`: the seeds' formulas as published and corrected.
"""
