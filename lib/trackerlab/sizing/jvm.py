"""JVM layout model: deep heap sizes of Java objects on 64-bit HotSpot (JDK 15 and newer).

Rules (each checked against a real JVM by ``trackerlab jvm-check``):

- **Object header** = mark word (8 B) + class pointer (4 B with compressed class pointers,
  8 B without): 12 B by default. Sources: JOL sample ``JOLSample_01_Basic``; A. Shipilëv,
  "Java Objects Inside Out" (shipilev.net/jvm/objects-inside-out), "Object headers".
- **References** are 4 B with compressed oops (heaps below 32 GB, the default) and 8 B
  without (``-XX:-UseCompressedOops``, or heaps of 32 GB and more).
- **Field packing**: fields of the whole class hierarchy are packed in declaration-agnostic
  order; an 8-byte field must be 8-aligned, and since JDK 15 (JDK-8237767, "Field layout
  computation overhaul") smaller fields fill the gap after the 12-byte header, including
  gaps left by superclasses. Shipilëv, "Java Objects Inside Out", "Field packing".
- **Alignment**: every object and array is padded to 8 B (``-XX:ObjectAlignmentInBytes=8``).
- **Arrays**: header + 4-byte length (16 B with compressed class pointers), then the
  elements: ``align8(16 + n * element_size)``. JOL: ``int[1]`` = 24 B.
- A boxed ``java.lang.Long`` is therefore 12 + 4 (gap) + 8 = **24 B**; ``Integer`` is 16 B.

Field type codes follow the JVM descriptors: ``J`` long, ``D`` double, ``I`` int,
``F`` float, ``S`` short, ``C`` char, ``B`` byte, ``Z`` boolean, ``L`` reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

_PRIMITIVE_BYTES = {"J": 8, "D": 8, "I": 4, "F": 4, "S": 2, "C": 2, "B": 1, "Z": 1}


def align(n: int, to: int = 8) -> int:
    """Round ``n`` up to a multiple of ``to``."""
    return (n + to - 1) // to * to


#: RoaringBitmap ART generations (read in each version's sources, measured on Pulsar's jars):
#: ``"1.6"`` (1.5.3 and later: leaves without prefix or node type); ``"1.2"`` (0.9.40 – 1.5.2:
#: every node carries ``nodeType, prefixLength, prefix, count``; a split leaf takes the static
#: ``EMPTY_BYTES``); ``"0.9.36"`` (0.9.36 – 0.9.39: a split leaf keeps its own ``byte[0]``);
#: ``"0.9"`` (before 0.9.36: also ``Containers.denseContainerIdxList``, a null reference).
#: Pulsar pins 0.9.44 in 2.10.5, 0.9.15 in 2.11.0, 1.2.0 in 3.0 – 4.1 and 1.6.9 from 4.2.0.
ROARING_ARTS = ("1.6", "1.2", "0.9.36", "0.9")


@dataclass(frozen=True)
class JvmLayout:
    """A HotSpot configuration: compressed oops and compressed class pointers on or off.

    The default is the default of 64-bit HotSpot for heaps below 32 GB (both on). With
    ``compressed_oops=False`` references take 8 B; JDK 15+ keeps compressed class
    pointers on independently (JDK-8241825), so the header stays 12 B unless
    ``compressed_class_pointers=False`` as well (the pre-JDK-15 behaviour).
    """

    compressed_oops: bool = True
    compressed_class_pointers: bool = True
    #: The RoaringBitmap generation on the class path, for ``Roaring64Bitmap``'s ART nodes
    #: (:data:`ROARING_ARTS`): not a HotSpot flag, but a layout the release's jar fixes
    #: (``trackerlab.sizing.jvm_roaring``).
    roaring_art: str = "1.6"

    def __post_init__(self) -> None:
        if self.roaring_art not in ROARING_ARTS:
            raise ValueError(f"roaring_art must be one of {ROARING_ARTS}, got {self.roaring_art!r}")

    @property
    def name(self) -> str:
        if self.compressed_oops:
            return "compressed oops"
        if self.compressed_class_pointers:
            return "uncompressed oops"
        return "uncompressed oops and class pointers"

    @property
    def header(self) -> int:
        """Object header: 8-byte mark word + class pointer."""
        return 8 + (4 if self.compressed_class_pointers else 8)

    @property
    def ref(self) -> int:
        """Size of a reference field or ``Object[]`` element."""
        return 4 if self.compressed_oops else 8

    @property
    def array_header(self) -> int:
        """Array header: object header + 4-byte length, padded to 8 when elements are longs."""
        return self.header + 4

    def field_bytes(self, code: str) -> int:
        """Size of one field of JVM type ``code`` (``L`` is a reference)."""
        return self.ref if code == "L" else _PRIMITIVE_BYTES[code]

    def instance(self, fields: str | Iterable[str]) -> int:
        """Shallow size of an object whose class hierarchy declares ``fields``.

        ``fields`` is a string of type codes, e.g. ``"LLLLLZ"`` for ``TreeMap.Entry``.
        Models the JDK 15+ packer: 8-byte fields go to 8-aligned offsets and the gap after
        the header is filled with smaller fields (largest first), then everything else
        follows contiguously. O(number of fields).
        """
        sizes = sorted((self.field_bytes(c) for c in fields), reverse=True)
        offset = self.header
        if sizes and sizes[0] == 8 and offset % 8:
            hole = free = 8 - offset % 8
            for s in [s for s in sizes if s < 8]:  # largest first
                if s <= free:
                    free -= s
                    sizes.remove(s)
            offset += hole  # the hole's bytes are either filled or padding
        return align(offset + sum(sizes))

    def array(self, length: int, element: str) -> int:
        """Size of a ``T[length]`` array; ``element`` is a type code (``L`` for ``Object[]``).

        Long and double arrays start at an 8-aligned offset (16 B with compressed class
        pointers; 24 B without), other arrays right after the length field.
        """
        if length < 0:
            raise ValueError(f"array length must be >= 0, got {length}")
        size = self.field_bytes(element)
        start = align(self.array_header, 8) if size == 8 else self.array_header
        return align(start + length * size)

    def boxed(self, code: str) -> int:
        """A boxed primitive (``Long``, ``Integer``...): an object with one field."""
        return self.instance(code)


#: 64-bit HotSpot with compressed oops and class pointers (heaps below 32 GB; the default).
COMPRESSED = JvmLayout()
#: Heaps of 32 GB and more: 8-byte references, compressed class pointers still on (JDK 15+).
UNCOMPRESSED_OOPS = JvmLayout(compressed_oops=False)
#: Both off, as before JDK 15 with large heaps (``-XX:-UseCompressedClassPointers``).
UNCOMPRESSED = JvmLayout(compressed_oops=False, compressed_class_pointers=False)

LAYOUTS = {
    "compressed": COMPRESSED,
    "uncompressed-oops": UNCOMPRESSED_OOPS,
    "uncompressed": UNCOMPRESSED,
}
