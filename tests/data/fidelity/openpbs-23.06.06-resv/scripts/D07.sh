#!/bin/bash
pbs_tmrsh nosuchhost /bin/true; echo rc=$?
