"""Golden-transcript (fidelity) tests: replay real OpenPBS 23.06.06 captures against fake_pbs."""
