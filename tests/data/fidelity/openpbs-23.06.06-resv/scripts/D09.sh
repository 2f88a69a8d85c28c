#!/bin/bash
pbsdsh -c 2 -- /bin/echo twice; echo rc=$?
