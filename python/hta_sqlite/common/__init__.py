"""HTA's hta.common modules that notebooks import: trace (the Trace class)."""
