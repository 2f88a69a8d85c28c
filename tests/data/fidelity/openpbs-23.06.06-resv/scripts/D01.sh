#!/bin/bash
pbsdsh -- /bin/sh -c 'echo $PBS_TASKNUM $PBS_NODENUM $PBS_VNODENUM'; echo rc=$?
