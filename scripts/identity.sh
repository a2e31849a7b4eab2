# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/submit.sh and scripts/mkdeb.sh.
# placeholder_why NAME EMAIL: why NAME <EMAIL> is no one's real identity
# (the repository's "Seed ... maintainers", a reserved or noreply domain),
# one line; nothing for a real one.
placeholder_why() {
	local name_lc=${1,,} email_lc=${2,,}
	if [[ -z ${1//[[:space:]]/} ]]; then
		echo "the name is empty"
	elif [[ $name_lc =~ (^|[^a-z])seed([^a-z]|$) || $name_lc == *maintainers* || $name_lc == "your name" ]]; then
		echo "the name is a placeholder ('Seed ... maintainers', 'Your Name')"
	elif [[ ! $email_lc =~ ^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$ ]]; then
		echo "the email is not an address of a real domain"
	elif [[ $email_lc == *noreply* ]]; then
		echo "the email is a noreply address"
	elif [[ $email_lc =~ [@.](example|invalid|test|localhost|localdomain)$ ||
		$email_lc =~ [@.]example\.(com|net|org)$ ]]; then
		echo "the email's domain is reserved (.example, .invalid, .test, .localhost, example.com...)"
	fi
}
