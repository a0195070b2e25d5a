//go:build !unix

package main

const noFollow = 0
