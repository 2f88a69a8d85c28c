#!/bin/bash
pbs_tmrsh vm /bin/echo hi; echo rc=$?
