"""Trackerlab's own designs: structures Pulsar does not ship, each a catalog design in its own
module with its Java shape written down and made of real parts."""
