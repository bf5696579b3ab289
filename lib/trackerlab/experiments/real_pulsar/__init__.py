"""Real Pulsar as the truth: its structures against the models (:mod:`.cases`) and its
configuration defaults and tracker forms against the release table (:mod:`.facts`)."""
