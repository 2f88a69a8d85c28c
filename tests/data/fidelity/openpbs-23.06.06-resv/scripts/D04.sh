#!/bin/bash
pbsdsh -- /nonexistent; echo rc=$?
