#!/bin/bash
pbs_attach; echo rc=$?
