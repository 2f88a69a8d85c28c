#!/bin/bash
pbsdsh -n 0 -- /bin/echo zero; echo rc=$?
