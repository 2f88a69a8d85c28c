#!/bin/bash
pbs_tmrsh vm env | grep ^PBS_ | cut -d= -f1 | sort; echo rc=$?
