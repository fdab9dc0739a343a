"""The demo business's error codes (the error branch's `structuredContent.code`); 4xxxx = the caller can fix it."""

MISSING_DESTINATION = 40001
SAME_ORIGIN_AND_DESTINATION = 40002
TARGET_PRICE_REQUIRED = 40003
TARGET_PRICE_NOT_BELOW_CURRENT = 40004
UNKNOWN_PRODUCT = 40401
UNKNOWN_ROUTE = 40402
ALREADY_IN_STOCK = 40901
# The inventory check_stock reads (5xxxx: not the caller's to fix).
INVENTORY_NOT_CONFIGURED = 50101
INVENTORY_BAD_ANSWER = 50201
