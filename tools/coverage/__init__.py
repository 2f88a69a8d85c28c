"""The attribute coverage map of fake_pbs against OpenPBS 23.06 (docs/coverage.md, issue 22)."""
