"""Make new-business and make skill: write a new business from templates/, draft its skill."""
