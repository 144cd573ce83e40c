"""nbhbench tune: from a violated guideline to a library setting a site can
install (docs/tuning.md). A room above workflow/ and analyze/: it runs
their commands (generate, submit, archive, analyze) and reads what they
write; gen's public functions plan its rounds."""
