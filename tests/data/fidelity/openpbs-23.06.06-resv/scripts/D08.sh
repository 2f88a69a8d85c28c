#!/bin/bash
cat $PBS_NODEFILE; pbsdsh -- /bin/sh -c 'echo task=$PBS_TASKNUM node=$PBS_NODENUM vnode=$PBS_VNODENUM host=$(hostname)' | sort; echo rc=$?
