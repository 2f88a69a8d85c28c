#!/bin/bash
pbsdsh; echo rc=$?
