"""HTA's hta.utils modules that notebooks import: utils (shorten_name, flatten_column_names)."""
