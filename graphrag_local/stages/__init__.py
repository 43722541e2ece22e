"""Pipeline stages: plain functions from records to records. A stage never reads config
files, the environment or the store; `pipeline.py` hands it values and persists results."""
