"""Sizing layer: three columns that are never mixed. It imports no model.

- :mod:`~trackerlab.sizing.python`: **Python-real bytes** of the Python models (pympler, with
  CRoaring's C memory of pyroaring bitmaps counted);
- :mod:`~trackerlab.sizing.jvm` and the layout modules next to it
  (:mod:`~trackerlab.sizing.jvm_collections`, :mod:`~trackerlab.sizing.jvm_roaring`):
  **JVM-equivalent bytes** of the Java originals (64-bit HotSpot layout model, checked against
  a real JVM by :mod:`trackerlab.jvmcheck`, ``trackerlab jvm-check``);
- :mod:`~trackerlab.sizing.theory`: the seeds' formulas as published and corrected;
- :mod:`~trackerlab.sizing.request`: what a design is sized for (:class:`SizeRequest`) and
  the three columns it returns (:class:`SizeResult`).
"""

from trackerlab.sizing.jvm import COMPRESSED, LAYOUTS, JvmLayout
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SIZE_COLUMNS, SizeRequest, SizeResult

__all__ = [
    "COMPRESSED",
    "LAYOUTS",
    "SIZE_COLUMNS",
    "JvmLayout",
    "SizeRequest",
    "SizeResult",
    "python_real_bytes",
]
