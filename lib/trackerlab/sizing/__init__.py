"""Sizing layer: three columns that are never mixed.

- :mod:`~trackerlab.sizing.python`: **Python-real bytes** of the Python models (pympler, with
  CRoaring's C memory of pyroaring bitmaps counted);
- :mod:`~trackerlab.sizing.jvm` and the layout modules next to it: **JVM-equivalent bytes**
  of the Java originals (64-bit HotSpot layout model, checked against a real JVM by
  :mod:`~trackerlab.sizing.jvm_probe`);
- :mod:`~trackerlab.sizing.theory`: the seeds' formulas as published and corrected.
"""
