#!/bin/bash
pbsdsh -v -- /bin/true; echo rc=$?
