"""The demo shop's catalogue: fixed products, so every search answers the same way every time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Category = Literal["drinkware", "travel", "home"]
CATEGORY_HELP = (
    "'drinkware' = cups, mugs, bottles and thermoses; 'travel' = luggage, pillows and travel accessories; "
    "'home' = storage boxes, lamps and desk items."
)


@dataclass(frozen=True)
class Product:
    product_id: str
    name: str
    category: str
    price_yuan: int
    rating: float
    in_stock: bool
    selling_point: str
    tags: tuple[str, ...]
    # What a search looks in: the name and the tags, lower case, made once (the catalogue never changes).
    haystack: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "haystack", " ".join((self.name, *self.tags)).lower())

    def as_item(self) -> dict[str, object]:
        return {
            "product_id": self.product_id,
            "name": self.name,
            "selling_point": self.selling_point,
            "price_yuan": self.price_yuan,
            "rating": self.rating,
            "in_stock": self.in_stock,
            "detail_url": f"page/product?id={self.product_id}",
            # Staff only: the manifest gives it to callers granted catalogue:costs and removes it for any other.
            "supplier_cost_yuan": round(self.price_yuan * 0.6),
            # Card-only: not declared in the manifest, so it reaches the widget but never the model.
            "image_url": f"https://img.example.com/products/{self.product_id}.jpg",
        }

    def matches(self, words: list[str]) -> bool:
        haystack = self.haystack
        return all(word in haystack for word in words)


CATALOGUE: tuple[Product, ...] = (
    Product("p-1001", "Light thermos cup 350 ml", "drinkware", 99, 4.7, True, "Fits a commuter bag", ("cup", "thermos", "insulated")),
    Product("p-1002", "Large thermos cup 1 L", "drinkware", 129, 4.6, True, "Keeps hot for 24 h on trips", ("cup", "thermos", "insulated")),
    Product("p-1003", "Ceramic coffee cup", "drinkware", 39, 4.4, True, "Dishwasher safe", ("cup", "mug", "coffee")),
    Product("p-1004", "Glass tea cup set of 4", "drinkware", 69, 4.2, False, "Heat-resistant glass", ("cup", "tea", "glass")),
    Product("p-1005", "Sports water bottle 750 ml", "drinkware", 59, 4.5, True, "Leak-proof flip lid", ("bottle", "water")),
    Product("p-2001", "Memory-foam travel pillow", "travel", 89, 4.3, True, "Folds into its own pouch", ("pillow", "neck")),
    Product("p-2002", "Carry-on suitcase 20 inch", "travel", 399, 4.8, True, "Fits airline cabin limits", ("suitcase", "luggage")),
    Product("p-2003", "Packing cubes set of 6", "travel", 79, 4.6, False, "Compresses clothes by a third", ("packing", "organizer")),
    Product("p-3001", "Stackable desk storage box", "home", 45, 4.1, True, "Stacks three high", ("storage", "box", "desk")),
    Product("p-3002", "LED desk lamp", "home", 159, 4.7, True, "Dimmable, eye-friendly light", ("lamp", "desk", "light")),
)  # fmt: skip
BY_ID = {product.product_id: product for product in CATALOGUE}
